package nodeop

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/drain"
	"github.com/kairos-io/kubectl-kairos/operator/internal/jobspec"
	"github.com/kairos-io/kubectl-kairos/operator/internal/kairosrelease"
	"github.com/kairos-io/kubectl-kairos/operator/internal/rollout"
)

// Labels the Job controller puts on a Job's pods (the second is the older spelling).
var jobNameLabels = []string{batchv1.JobNameLabel, "job-name"}

// controlPlaneLabels mark control-plane nodes (the second is the older spelling).
var controlPlaneLabels = []string{"node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master"}

// observation is everything read for one reconcile.
type observation struct {
	nodes []rollout.Node
	// bootIDs are the target nodes' current boot IDs, recorded on the Jobs created.
	bootIDs map[string]string
}

// observe reads the target nodes and what op created for them, all from the cache.
func (r *Reconciler) observe(ctx context.Context, op *kairosv1alpha1.NodeOp) (*observation, error) {
	sel := client.MatchingLabels{kairosv1alpha1.LabelNodeOp: op.Name}
	var jobs batchv1.JobList
	if err := r.List(ctx, &jobs, client.InNamespace(op.Namespace), sel); err != nil {
		return nil, fmt.Errorf("list Jobs of NodeOp %s: %w", op.Name, err)
	}
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(op.Namespace), sel); err != nil {
		return nil, fmt.Errorf("list pods of NodeOp %s: %w", op.Name, err)
	}

	ownJobs := map[string]*batchv1.Job{}
	for i := range jobs.Items {
		if ownedBy(&jobs.Items[i], op) {
			ownJobs[jobs.Items[i].Name] = &jobs.Items[i]
		}
	}
	ownPods := map[string]*corev1.Pod{}
	jobPods := map[string][]*corev1.Pod{}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.DeletionTimestamp != nil {
			continue // on its way out: as good as gone
		}
		if ownedBy(pod, op) {
			ownPods[pod.Name] = pod
		}
		for _, l := range jobNameLabels {
			if name := pod.Labels[l]; name != "" && ownJobs[name] != nil {
				jobPods[name] = append(jobPods[name], pod)
				break
			}
		}
	}

	obs := &observation{bootIDs: map[string]string{}}
	names := make([]string, 0, len(op.Status.NodeStatuses))
	for name := range op.Status.NodeStatuses {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		n := rollout.Node{Name: name, Status: op.Status.NodeStatuses[name]}
		var node corev1.Node
		switch err := r.Get(ctx, client.ObjectKey{Name: name}, &node); {
		case apierrors.IsNotFound(err):
		case err != nil:
			return nil, fmt.Errorf("get node %s: %w", name, err)
		default:
			describeNode(&n, &node, op)
			obs.bootIDs[name] = node.Status.NodeInfo.BootID
		}
		if pod := ownPods[jobspec.PreflightPodName(op, name)]; pod != nil {
			n.Preflight = preflightState(pod)
		}
		if job := ownJobs[jobspec.JobName(op, name)]; job != nil {
			n.Job = jobState(job, jobPods[job.Name])
		}
		n.RebootPodExists = ownPods[jobspec.RebootPodName(op, name)] != nil
		state, msg := r.Drains.State(drain.Key{Owner: op.UID, Node: name})
		n.Drain, n.DrainMessage = drainStates[state], msg
		obs.nodes = append(obs.nodes, n)
	}
	return obs, nil
}

// job returns the observed Job of node, nil when there is none.
func (o *observation) job(node string) *rollout.JobState {
	for i := range o.nodes {
		if o.nodes[i].Name == node {
			return o.nodes[i].Job
		}
	}
	return nil
}

var drainStates = map[drain.State]rollout.DrainState{
	drain.NotStarted: rollout.DrainNotStarted,
	drain.Running:    rollout.DrainRunning,
	drain.Succeeded:  rollout.DrainSucceeded,
	drain.Failed:     rollout.DrainFailed,
}

func describeNode(n *rollout.Node, node *corev1.Node, op *kairosv1alpha1.NodeOp) {
	n.Exists = true
	n.BootID = node.Status.NodeInfo.BootID
	n.Unschedulable = node.Spec.Unschedulable
	n.CordonedByUs = node.Annotations[kairosv1alpha1.AnnotationCordonedBy] == op.CordonOwner()
	if op.Spec.Verify != nil {
		n.Reported = rollout.Reported{
			Labels:         node.Labels,
			LabelledBootID: node.Annotations[kairosv1alpha1.AnnotationLabelledBootID],
			OSImage:        node.Status.NodeInfo.OSImage,
		}
	}
	for _, l := range controlPlaneLabels {
		if _, ok := node.Labels[l]; ok {
			n.ControlPlane = true
		}
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			n.Ready = c.Status == corev1.ConditionTrue
		}
	}
}

func preflightState(pod *corev1.Pod) *rollout.PodState {
	st := &rollout.PodState{Phase: pod.Status.Phase}
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil {
			st.Message = t.Message
			if pod.Status.Phase == corev1.PodFailed && st.Message == "" {
				st.Message = fmt.Sprintf("exit code %d (%s)", t.ExitCode, t.Reason)
			}
		}
	}
	if pod.Status.Phase == corev1.PodFailed && st.Message == "" {
		st.Message = pod.Status.Reason + " " + pod.Status.Message
	}
	return st
}

// jobState reads a Job and its pods. A node's work is done as soon as one pod succeeded: the
// Job's Complete condition follows about a second later and is not waited for.
func jobState(job *batchv1.Job, pods []*corev1.Pod) *rollout.JobState {
	st := &rollout.JobState{Name: job.Name, BootIDBefore: job.Annotations[jobspec.AnnotationBootID]}
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobFailed:
			st.Failed, st.Message = true, fmt.Sprintf("%s: %s", c.Reason, c.Message)
		case batchv1.JobComplete, batchv1.JobSuccessCriteriaMet:
			st.Succeeded, st.SucceededAt = true, c.LastTransitionTime.Time
		}
	}
	for _, pod := range pods {
		if pod.Status.Phase == corev1.PodSucceeded {
			at := podFinishedAt(pod)
			if !st.Succeeded || at.Before(st.SucceededAt) {
				st.Succeeded, st.SucceededAt = true, at
				st.Report = commandReport(pod)
			}
		}
	}
	if st.Succeeded {
		st.Failed = false
	}
	return st
}

// commandReport reads the KEY=VALUE lines the user's command left in its termination message.
func commandReport(pod *corev1.Pod) map[string]string {
	for _, statuses := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, cs := range statuses {
			if cs.Name != jobspec.CommandContainer || cs.State.Terminated == nil || cs.State.Terminated.Message == "" {
				continue
			}
			report, err := kairosrelease.Parse(strings.NewReader(cs.State.Terminated.Message))
			if err != nil {
				return nil
			}
			return report
		}
	}
	return nil
}

// podFinishedAt is when the last container of a succeeded pod ended.
func podFinishedAt(pod *corev1.Pod) time.Time {
	var at time.Time
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.FinishedAt.After(at) {
			at = t.FinishedAt.Time
		}
	}
	if at.IsZero() {
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodReady || c.Type == corev1.ContainersReady {
				at = c.LastTransitionTime.Time
			}
		}
	}
	if at.IsZero() {
		at = pod.CreationTimestamp.Time
	}
	return at
}

func ownedBy(obj client.Object, op *kairosv1alpha1.NodeOp) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID == op.UID && ptr.Deref(ref.Controller, false) {
			return true
		}
	}
	return false
}
