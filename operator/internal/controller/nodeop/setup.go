package nodeop

import (
	"context"
	"maps"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// SetupWithManager registers the controller: it reacts to its NodeOps, their Jobs and pods, the
// nodes they target and finished drains. Nothing polls.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, drainDone <-chan event.TypedGenericEvent[*kairosv1alpha1.NodeOp]) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("nodeop").
		For(&kairosv1alpha1.NodeOp{}).
		Owns(&batchv1.Job{}).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(nodeOpOfPod)).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(r.nodeOpsOfNode),
			builder.WithPredicates(nodeChanged)).
		WatchesRawSource(source.Channel(drainDone, &handler.TypedEnqueueRequestForObject[*kairosv1alpha1.NodeOp]{})).
		Complete(r)
}

// nodeOpOfPod maps a Job's, reboot or preflight pod to its NodeOp by label.
func nodeOpOfPod(_ context.Context, obj client.Object) []reconcile.Request {
	name := obj.GetLabels()[kairosv1alpha1.LabelNodeOp]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: obj.GetNamespace(), Name: name}}}
}

// nodeOpsOfNode maps a node to the unfinished NodeOps that target it.
func (r *Reconciler) nodeOpsOfNode(ctx context.Context, obj client.Object) []reconcile.Request {
	var ops kairosv1alpha1.NodeOpList
	if err := r.List(ctx, &ops); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for _, op := range ops.Items {
		if _, targeted := op.Status.NodeStatuses[obj.GetName()]; targeted && (!op.Status.Phase.Finished() || !op.DeletionTimestamp.IsZero()) {
			reqs = append(reqs, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: op.Namespace, Name: op.Name}})
		}
	}
	return reqs
}

// nodeChanged passes node updates that matter to a rollout (cordon, our annotation, boot ID,
// readiness, what the node reports for verification) and drops the rest, such as heartbeats.
var nodeChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		before, okB := e.ObjectOld.(*corev1.Node)
		after, okA := e.ObjectNew.(*corev1.Node)
		if !okB || !okA {
			return true
		}
		return before.Spec.Unschedulable != after.Spec.Unschedulable ||
			before.Annotations[kairosv1alpha1.AnnotationCordonedBy] != after.Annotations[kairosv1alpha1.AnnotationCordonedBy] ||
			before.Status.NodeInfo.BootID != after.Status.NodeInfo.BootID ||
			before.Status.NodeInfo.OSImage != after.Status.NodeInfo.OSImage ||
			before.Annotations[kairosv1alpha1.AnnotationLabelledBootID] != after.Annotations[kairosv1alpha1.AnnotationLabelledBootID] ||
			!maps.Equal(before.Labels, after.Labels) ||
			ready(before) != ready(after)
	},
}

func ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
