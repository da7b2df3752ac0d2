// Package nodeop reconciles NodeOps: it records the target nodes, asks the rollout planner what
// to do next, records the new status and then carries out the planned actions.
package nodeop

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/drain"
	"github.com/kairos-io/kubectl-kairos/operator/internal/jobspec"
	"github.com/kairos-io/kubectl-kairos/operator/internal/rollout"
)

// +kubebuilder:rbac:groups=operator.kairos.io,resources=nodeops,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=operator.kairos.io,resources=nodeops/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=operator.kairos.io,resources=nodeops/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=pods/eviction,verbs=create
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=apps,resources=daemonsets,verbs=get
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconciler reconciles NodeOps.
type Reconciler struct {
	client.Client
	Recorder events.EventRecorder
	Drains   *drain.Runner
	Settings jobspec.Settings
	Metrics  *Metrics
	// Now is the clock; tests may replace it.
	Now func() time.Time

	written lastWrites
}

// Reconcile moves one NodeOp forward.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	cached := &kairosv1alpha1.NodeOp{}
	if err := r.Get(ctx, req.NamespacedName, cached); err != nil {
		if apierrors.IsNotFound(err) {
			r.written.forget(req.NamespacedName)
			r.Metrics.forget(req.Namespace, req.Name)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	op := r.written.freshest(cached)
	deleting := !op.DeletionTimestamp.IsZero()
	if !deleting && op.Spec.Cordon && !controllerutil.ContainsFinalizer(op, kairosv1alpha1.FinalizerNodeOp) {
		controllerutil.AddFinalizer(op, kairosv1alpha1.FinalizerNodeOp)
		return ctrl.Result{}, r.Update(ctx, op)
	}
	if op.Status.Phase == "" && !deleting {
		return ctrl.Result{}, r.recordTargets(ctx, op)
	}

	obs, err := r.observe(ctx, op)
	if err != nil {
		return ctrl.Result{}, err
	}
	now := r.Now()
	settings := settingsOf(op, deleting)
	plan := rollout.Plan(settings, obs.nodes, now)

	// Act first, record second: every action leaves a mark in the cluster that the next pass
	// observes (see rollout.Plan), so the status may lag without anything running twice, and a
	// node's hand-over does not wait for a status write.
	actErr := r.act(ctx, op, obs, plan.Actions)
	if status := desiredStatus(op, settings, plan, now); !sameStatus(status, op.Status) {
		before := op.Status.NodeStatuses
		op.Status = status
		if err := r.Status().Update(ctx, op); err != nil {
			if apierrors.IsConflict(err) {
				return ctrl.Result{Requeue: true}, actErr // a newer NodeOp is on its way to the cache
			}
			return ctrl.Result{}, errors.Join(actErr, fmt.Errorf("update status of NodeOp %s: %w", op.Name, err))
		}
		r.written.remember(op)
		// Reported once the new status is recorded, so a conflict and retry reports nothing twice.
		r.reportTransitions(op, obs, before, plan.Nodes, now)
	}
	if actErr != nil {
		return ctrl.Result{}, actErr
	}
	if deleting && plan.Idle {
		return ctrl.Result{}, r.release(ctx, op)
	}
	if plan.Phase.Finished() {
		r.Drains.Forget(op.UID)
	}
	return ctrl.Result{RequeueAfter: plan.RequeueAfter}, nil
}

// recordTargets fixes the target nodes once, when the NodeOp starts: nodes that join later are
// not swept into a running operation.
func (r *Reconciler) recordTargets(ctx context.Context, op *kairosv1alpha1.NodeOp) error {
	sel, err := op.Spec.NodeSelector.Selector()
	if err != nil {
		return fmt.Errorf("node selector of NodeOp %s: %w", op.Name, err)
	}
	var nodes corev1.NodeList
	if err := r.List(ctx, &nodes, client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return fmt.Errorf("list nodes: %w", err)
	}
	targets := rollout.Result{
		Nodes:   make(map[string]kairosv1alpha1.NodeStatus, len(nodes.Items)),
		Phase:   kairosv1alpha1.NodeOpPending,
		Message: fmt.Sprintf("%d target nodes", len(nodes.Items)),
	}
	for _, n := range nodes.Items {
		targets.Nodes[n.Name] = kairosv1alpha1.NodeStatus{Phase: kairosv1alpha1.NodePending, Message: "Waiting to start"}
	}
	if len(nodes.Items) == 0 {
		targets.Phase, targets.Message = kairosv1alpha1.NodeOpFailed, "No nodes match the node selector; nothing was done"
	}
	op.Status = desiredStatus(op, settingsOf(op, false), targets, r.Now())
	log.FromContext(ctx).Info("Recorded target nodes", "count", len(nodes.Items))
	if len(nodes.Items) == 0 {
		r.event(op, corev1.EventTypeWarning, "NoMatchingNodes", "No nodes match the node selector; nothing was done")
	}
	return r.Status().Update(ctx, op)
}

// release lets a deleted NodeOp go once nothing of it runs and no cordon of it remains.
func (r *Reconciler) release(ctx context.Context, op *kairosv1alpha1.NodeOp) error {
	r.Drains.Forget(op.UID)
	r.written.forget(client.ObjectKeyFromObject(op))
	r.Metrics.forget(op.Namespace, op.Name)
	if !controllerutil.ContainsFinalizer(op, kairosv1alpha1.FinalizerNodeOp) {
		return nil
	}
	controllerutil.RemoveFinalizer(op, kairosv1alpha1.FinalizerNodeOp)
	log.FromContext(ctx).Info("Released NodeOp")
	return r.Update(ctx, op)
}

func settingsOf(op *kairosv1alpha1.NodeOp, deleting bool) rollout.Settings {
	return rollout.Settings{
		Concurrency:                 int(op.Spec.Concurrency),
		AllowConcurrentControlPlane: op.Spec.AllowConcurrentControlPlane,
		StopOnFailure:               op.Spec.StopOnFailure,
		Paused:                      op.Spec.Paused,
		Deleting:                    deleting,
		Preflight:                   op.Spec.Preflight != nil,
		Cordon:                      op.Spec.Cordon,
		Drain:                       op.Spec.DrainOptions != nil && op.Spec.DrainOptions.Enabled,
		Reboot:                      op.Spec.RebootOnSuccess,
		UncordonOnFailure:           op.Spec.UncordonOnFailure,
		RebootTimeout:               time.Duration(ptr.Deref(op.Spec.RebootTimeoutSeconds, 900)) * time.Second,
		Verify:                      op.Spec.Verify,
	}
}

// event records a Kubernetes Event about op; the reason doubles as the action.
func (r *Reconciler) event(op *kairosv1alpha1.NodeOp, eventType, reason, format string, args ...any) {
	r.Recorder.Eventf(op, nil, eventType, reason, reason, format, args...)
}
