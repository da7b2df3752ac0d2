package nodeop_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/jobspec"
	"github.com/kairos-io/kubectl-kairos/operator/internal/manager/managertest"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(managertest.RunTests(m, &env))
}

const waitLimit = 60 * time.Second

// startOperator runs the operator's manager until the test ends (or stop is called).
func startOperator(t *testing.T) (stop func()) {
	t.Helper()
	return managertest.Start(t, env.Config)
}

var seq atomic.Int32

// fixture is one test's namespace and nodes; node names and labels are unique per test, since
// nodes are cluster-wide.
type fixture struct {
	t     *testing.T
	ctx   context.Context
	ns    string
	label string // value of the "suite" label on this test's nodes
}

func newFixture(t *testing.T) *fixture {
	id := seq.Add(1)
	f := &fixture{t: t, ctx: context.Background(), ns: fmt.Sprintf("nodeop-%d", id), label: fmt.Sprintf("t%d", id)}
	env.CreateNamespace(t, f.ns)
	return f
}

// node creates a Ready node of this test with boot ID boot-1.
func (f *fixture) node(name string, extra ...func(*corev1.Node)) string {
	f.t.Helper()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"suite": f.label}}}
	for _, e := range extra {
		e(n)
	}
	env.CreateReadyNode(f.ctx, f.t, n)
	return name
}

func (f *fixture) nodes(prefix string, count int, extra ...func(*corev1.Node)) []string {
	var names []string
	for i := range count {
		names = append(names, f.node(fmt.Sprintf("%s-%s-%02d", f.label, prefix, i), extra...))
	}
	return names
}

func asControlPlane(n *corev1.Node) { n.Labels["node-role.kubernetes.io/control-plane"] = "true" }
func preCordoned(n *corev1.Node)    { n.Spec.Unschedulable = true }

// nodeOp creates a NodeOp that targets this test's nodes.
func (f *fixture) nodeOp(name string, spec func(*kairosv1alpha1.NodeOpSpec)) *kairosv1alpha1.NodeOp {
	f.t.Helper()
	op := &kairosv1alpha1.NodeOp{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns}}
	op.Spec.Command = []string{"sh", "-c", "true"}
	op.Spec.NodeSelector = &kairosv1alpha1.NodeSelector{MatchLabels: map[string]kairosv1alpha1.LabelValue{"suite": kairosv1alpha1.LabelValue(f.label)}}
	if spec != nil {
		spec(&op.Spec)
	}
	if err := env.Client.Create(f.ctx, op); err != nil {
		f.t.Fatal(err)
	}
	return op
}

func (f *fixture) get(op *kairosv1alpha1.NodeOp) *kairosv1alpha1.NodeOp {
	f.t.Helper()
	got := &kairosv1alpha1.NodeOp{}
	if err := env.Client.Get(f.ctx, client.ObjectKeyFromObject(op), got); err != nil {
		f.t.Fatal(err)
	}
	return got
}

// eventually polls cond until it holds or the wait limit passes.
func (f *fixture) eventually(what string, cond func() bool) {
	f.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			f.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (f *fixture) waitPhase(op *kairosv1alpha1.NodeOp, phase kairosv1alpha1.NodeOpPhase) *kairosv1alpha1.NodeOp {
	f.t.Helper()
	var got *kairosv1alpha1.NodeOp
	f.eventually(fmt.Sprintf("NodeOp %s to be %s", op.Name, phase), func() bool {
		got = f.get(op)
		return got.Status.Phase == phase
	})
	return got
}

func (f *fixture) waitNode(op *kairosv1alpha1.NodeOp, node string, phase kairosv1alpha1.NodePhase) kairosv1alpha1.NodeStatus {
	f.t.Helper()
	var st kairosv1alpha1.NodeStatus
	f.eventually(fmt.Sprintf("node %s to be %s", node, phase), func() bool {
		st = f.get(op).Status.NodeStatuses[node]
		return st.Phase == phase
	})
	return st
}

// job returns the Job of op on node, nil when there is none.
func (f *fixture) job(op *kairosv1alpha1.NodeOp, node string) *batchv1.Job {
	f.t.Helper()
	job := &batchv1.Job{}
	err := env.Client.Get(f.ctx, types.NamespacedName{Namespace: f.ns, Name: jobspec.JobName(op, node)}, job)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return job
}

func (f *fixture) waitJob(op *kairosv1alpha1.NodeOp, node string) *batchv1.Job {
	f.t.Helper()
	var job *batchv1.Job
	f.eventually("a Job on "+node, func() bool { job = f.job(op, node); return job != nil })
	return job
}

// succeedJob plays the Job controller and kubelet: the Job's pod runs and succeeds.
func (f *fixture) succeedJob(op *kairosv1alpha1.NodeOp, node string) {
	f.t.Helper()
	succeedJobPod(f.ctx, f.t, f.waitJob(op, node), "")
}

// succeedJobReporting is succeedJob with the command leaving report as its termination message.
func (f *fixture) succeedJobReporting(op *kairosv1alpha1.NodeOp, node, report string) {
	f.t.Helper()
	succeedJobPod(f.ctx, f.t, f.waitJob(op, node), report)
}

func succeedJobPod(ctx context.Context, t testing.TB, job *batchv1.Job, report string) {
	t.Helper()
	testenv.SucceedJobPod(ctx, t, env.Client, job, jobspec.CommandContainer, report)
}

// failJob plays the Job controller giving up on a Job after its retries.
func (f *fixture) failJob(op *kairosv1alpha1.NodeOp, node string) {
	f.t.Helper()
	job := f.waitJob(op, node)
	now := metav1.Now()
	job.Status.StartTime = &now
	job.Status.Failed = 1
	job.Status.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now, LastProbeTime: now},
		{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded", Message: "Job has reached the specified backoff limit", LastTransitionTime: now, LastProbeTime: now},
	}
	if err := env.Client.Status().Update(f.ctx, job); err != nil {
		f.t.Fatal(err)
	}
}

// reboot plays a node that rebooted: new boot ID, Ready.
func (f *fixture) reboot(node string) {
	f.t.Helper()
	n := &corev1.Node{}
	if err := env.Client.Get(f.ctx, client.ObjectKey{Name: node}, n); err != nil {
		f.t.Fatal(err)
	}
	n.Status.NodeInfo.BootID = "boot-2"
	if err := env.Client.Status().Update(f.ctx, n); err != nil {
		f.t.Fatal(err)
	}
}

// rebootInto plays a node that rebooted and whose labeler labelled the new boot.
func (f *fixture) rebootInto(node string, labels map[string]string) {
	f.t.Helper()
	f.reboot(node)
	n := f.getNode(node)
	patch := client.MergeFrom(n.DeepCopy()) // as the labeler does: no resourceVersion to conflict on
	for k, v := range labels {
		n.Labels[k] = v
	}
	if n.Annotations == nil {
		n.Annotations = map[string]string{}
	}
	n.Annotations[kairosv1alpha1.AnnotationLabelledBootID] = n.Status.NodeInfo.BootID
	if err := env.Client.Patch(f.ctx, n, patch); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) getNode(name string) *corev1.Node {
	f.t.Helper()
	n := &corev1.Node{}
	if err := env.Client.Get(f.ctx, client.ObjectKey{Name: name}, n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// podExists reports whether a pod exists and is not being deleted (without a kubelet, a deleted
// pod on a node stays Terminating).
func (f *fixture) podExists(name string) bool {
	f.t.Helper()
	pod := &corev1.Pod{}
	err := env.Client.Get(f.ctx, types.NamespacedName{Namespace: f.ns, Name: name}, pod)
	if err != nil && !apierrors.IsNotFound(err) {
		f.t.Fatal(err)
	}
	return err == nil && pod.DeletionTimestamp == nil
}

// jobCount counts the Jobs of op.
func (f *fixture) jobCount(op *kairosv1alpha1.NodeOp) int {
	f.t.Helper()
	var jobs batchv1.JobList
	if err := env.Client.List(f.ctx, &jobs, client.InNamespace(f.ns), client.MatchingLabels{kairosv1alpha1.LabelNodeOp: op.Name}); err != nil {
		f.t.Fatal(err)
	}
	return len(jobs.Items)
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

type corev1Node = corev1.Node

func envClient() client.Client { return env.Client }

// workload creates a running pod on node, managed by a (pretend) ReplicaSet so that a drain
// without force may evict it.
func (f *fixture) workload(name, node string, labels map[string]string) {
	f.t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: f.ns, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "0000-rs", Controller: ptr.To(true)}},
		},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
	}
	if err := env.Client.Create(f.ctx, pod); err != nil {
		f.t.Fatal(err)
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
	if err := env.Client.Status().Update(f.ctx, pod); err != nil {
		f.t.Fatal(err)
	}
}

// finishPreflight plays the kubelet running op's preflight pod on node to the given end, with
// message as its termination message.
func (f *fixture) finishPreflight(op *kairosv1alpha1.NodeOp, node string, phase corev1.PodPhase, message string) {
	f.t.Helper()
	pod := &corev1.Pod{}
	key := types.NamespacedName{Namespace: f.ns, Name: jobspec.PreflightPodName(op, node)}
	f.eventually("preflight pod on "+node, func() bool { return env.Client.Get(f.ctx, key, pod) == nil })
	now := metav1.Now()
	pod.Status.Phase = phase
	exit := int32(0)
	if phase == corev1.PodFailed {
		exit = 1
	}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Name: "preflight", Image: pod.Spec.Containers[0].Image,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Message: message, StartedAt: now, FinishedAt: now}},
	}}
	if err := env.Client.Status().Update(f.ctx, pod); err != nil {
		f.t.Fatal(err)
	}
}

// eventReasons lists the reasons of the Events recorded about op.
func (f *fixture) eventReasons(op *kairosv1alpha1.NodeOp) map[string]bool {
	f.t.Helper()
	var list eventsv1.EventList
	if err := env.Client.List(f.ctx, &list, client.InNamespace(f.ns)); err != nil {
		f.t.Fatal(err)
	}
	reasons := map[string]bool{}
	for _, ev := range list.Items {
		if ev.Regarding.UID == op.UID {
			reasons[ev.Reason] = true
		}
	}
	return reasons
}
