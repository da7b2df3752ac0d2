package nodeop

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/drain"
	"github.com/kairos-io/kubectl-kairos/operator/internal/jobspec"
	"github.com/kairos-io/kubectl-kairos/operator/internal/rollout"
)

// act performs the planned actions. Each one is idempotent: names are deterministic and
// "already exists" or "not found" mean it was done before, perhaps by a previous operator.
func (r *Reconciler) act(ctx context.Context, op *kairosv1alpha1.NodeOp, obs *observation, actions []rollout.Action) error {
	var errs []error
	for _, a := range actions {
		if err := r.perform(ctx, op, obs, a); err != nil {
			errs = append(errs, fmt.Errorf("%s on node %s: %w", a.Kind, a.Node, err))
		}
	}
	return errors.Join(errs...)
}

func (r *Reconciler) perform(ctx context.Context, op *kairosv1alpha1.NodeOp, obs *observation, a rollout.Action) error {
	logger := log.FromContext(ctx).WithValues("node", a.Node)
	key := drain.Key{Owner: op.UID, Node: a.Node}
	switch a.Kind {
	case rollout.CreatePreflightPod:
		return r.create(ctx, op, jobspec.PreflightPod(op, a.Node, r.Settings), "PreflightStarted", "Running the preflight check on node %s", a.Node)
	case rollout.Cordon:
		return r.setCordon(ctx, op, a.Node, true)
	case rollout.StartDrain:
		logger.Info("Draining node")
		r.Drains.Start(ctx, key, types.NamespacedName{Namespace: op.Namespace, Name: op.Name}, drainOptions(op))
		r.event(op, corev1.EventTypeNormal, "Draining", "Draining node %s", a.Node)
		return nil
	case rollout.CancelDrain:
		r.Drains.Cancel(key)
		return nil
	case rollout.CreateRebootPod:
		return r.create(ctx, op, jobspec.RebootPod(op, a.Node, r.Settings), "RebootScheduled", "Node %s will reboot once its Job succeeded", a.Node)
	case rollout.CreateJob:
		return r.create(ctx, op, jobspec.Job(op, a.Node, obs.bootIDs[a.Node], r.Settings), "JobCreated", "Created the Job for node %s", a.Node)
	case rollout.DeleteRebootPod:
		pod := &corev1.Pod{}
		pod.Namespace, pod.Name = op.Namespace, jobspec.RebootPodName(op, a.Node)
		if err := r.Delete(ctx, pod, client.PropagationPolicy("Background")); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	case rollout.Uncordon:
		return r.setCordon(ctx, op, a.Node, false)
	}
	return fmt.Errorf("unknown action %q", a.Kind)
}

func (r *Reconciler) create(ctx context.Context, op *kairosv1alpha1.NodeOp, obj client.Object, reason, format string, args ...any) error {
	if err := r.Create(ctx, obj); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return fmt.Errorf("create %s: %w", obj.GetName(), err)
	}
	r.event(op, corev1.EventTypeNormal, reason, format, args...)
	return nil
}

// setCordon cordons a node and marks it as ours, or uncordons a node that carries our mark.
// The patch carries the node's resourceVersion, so it never overwrites someone else's change
// made in between; a conflict is retried by the next reconcile.
func (r *Reconciler) setCordon(ctx context.Context, op *kairosv1alpha1.NodeOp, name string, cordon bool) error {
	var cached corev1.Node
	if err := r.Get(ctx, client.ObjectKey{Name: name}, &cached); err != nil {
		return fmt.Errorf("get node %s: %w", name, err)
	}
	// The cache hands out shared objects: change a copy, never the original.
	orig := &cached
	node := *cached.DeepCopy()
	owner := op.CordonOwner()
	if cordon {
		if node.Spec.Unschedulable {
			return nil // already cordoned, by someone else: not ours
		}
		node.Spec.Unschedulable = true
		if node.Annotations == nil {
			node.Annotations = map[string]string{}
		}
		node.Annotations[kairosv1alpha1.AnnotationCordonedBy] = owner
	} else {
		if node.Annotations[kairosv1alpha1.AnnotationCordonedBy] != owner {
			return nil // never undo a cordon that is not ours
		}
		node.Spec.Unschedulable = false
		delete(node.Annotations, kairosv1alpha1.AnnotationCordonedBy)
	}
	if err := r.Patch(ctx, &node, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("patch node %s: %w", name, err)
	}
	verb, reason := "Uncordoned", "Uncordoned"
	if cordon {
		verb, reason = "Cordoned", "Cordoned"
	}
	log.FromContext(ctx).Info(verb+" node", "node", name)
	r.event(op, corev1.EventTypeNormal, reason, "%s node %s", verb, name)
	return nil
}

func drainOptions(op *kairosv1alpha1.NodeOp) drain.Options {
	d := op.Spec.DrainOptions
	return drain.Options{
		Force:              d.Force,
		IgnoreDaemonSets:   ptr.Deref(d.IgnoreDaemonSets, true),
		DeleteEmptyDirData: d.DeleteEmptyDirData,
		GracePeriodSeconds: int(ptr.Deref(d.GracePeriodSeconds, -1)),
		Timeout:            time.Duration(ptr.Deref(d.TimeoutSeconds, 0)) * time.Second,
	}
}
