// Package nodeopupgrade reconciles NodeOpUpgrades. Each one is carried out by a NodeOp of the
// same name, created once; this controller keeps the NodeOp's pacing in line with the upgrade
// and mirrors the NodeOp's progress into the upgrade's status. The rollout itself, node by
// node, is the NodeOp controller's.
package nodeopupgrade

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/upgrade"
)

// +kubebuilder:rbac:groups=operator.kairos.io,resources=nodeopupgrades,verbs=get;list;watch
// +kubebuilder:rbac:groups=operator.kairos.io,resources=nodeopupgrades/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=operator.kairos.io,resources=nodeops,verbs=get;list;watch;create;update;patch

// Condition reasons of a NodeOpUpgrade's own (the rest are mirrored from its NodeOp).
const (
	reasonNodeOpCreated = "NodeOpCreated"
	reasonNodeOpTaken   = "NodeOpNameTaken"
	reasonNodeOpDeleted = "NodeOpDeleted"
)

// Reconciler reconciles NodeOpUpgrades.
type Reconciler struct {
	client.Client
	// APIReader reads past the cache, to tell a deleted NodeOp from one not cached yet.
	APIReader client.Reader
	Recorder  events.EventRecorder
	// Now is the clock; tests may replace it.
	Now func() time.Time
}

// Reconcile brings one NodeOpUpgrade's NodeOp and status up to date.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	u := &kairosv1alpha1.NodeOpUpgrade{}
	if err := r.Get(ctx, req.NamespacedName, u); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !u.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // the garbage collector deletes the NodeOp, which releases its cordons
	}

	op := &kairosv1alpha1.NodeOp{}
	err := r.Get(ctx, req.NamespacedName, op)
	switch {
	case apierrors.IsNotFound(err) && u.Status.NodeOpName == "":
		return ctrl.Result{}, r.createNodeOp(ctx, u)
	case apierrors.IsNotFound(err):
		if live := r.APIReader.Get(ctx, req.NamespacedName, &kairosv1alpha1.NodeOp{}); !apierrors.IsNotFound(live) {
			return ctrl.Result{Requeue: live == nil}, live // created, not cached yet
		}
		// Recreating it would start the upgrade over behind the user's back.
		return ctrl.Result{}, r.halt(ctx, u, reasonNodeOpDeleted, fmt.Sprintf(
			"NodeOp %s was deleted while the upgrade ran; nothing more is upgraded. Create a new NodeOpUpgrade to continue", u.Name))
	case err != nil:
		return ctrl.Result{}, fmt.Errorf("get NodeOp %s: %w", req.Name, err)
	case !metav1.IsControlledBy(op, u):
		return ctrl.Result{}, r.halt(ctx, u, reasonNodeOpTaken, fmt.Sprintf(
			"a NodeOp named %s already exists and does not belong to this NodeOpUpgrade; delete it or upgrade under another name", u.Name))
	}

	if upgrade.CopyPacing(u, op) {
		if err := r.Update(ctx, op); err != nil {
			if apierrors.IsConflict(err) {
				return ctrl.Result{Requeue: true}, nil
			}
			return ctrl.Result{}, fmt.Errorf("update pacing of NodeOp %s: %w", op.Name, err)
		}
		log.FromContext(ctx).Info("Passed pacing on to the NodeOp", "concurrency", op.Spec.Concurrency,
			"stopOnFailure", op.Spec.StopOnFailure, "paused", op.Spec.Paused)
	}
	return ctrl.Result{}, r.writeStatus(ctx, u, mirror(u, op))
}

func (r *Reconciler) createNodeOp(ctx context.Context, u *kairosv1alpha1.NodeOpUpgrade) error {
	op := upgrade.NodeOp(u)
	if err := r.Create(ctx, op); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create NodeOp %s: %w", op.Name, err)
	}
	log.FromContext(ctx).Info("Created NodeOp", "image", u.Spec.Image)
	r.Recorder.Eventf(u, op, corev1.EventTypeNormal, reasonNodeOpCreated, "CreateNodeOp", "Created NodeOp %s to upgrade to %s", op.Name, u.Spec.Image)
	st := u.Status.DeepCopy()
	st.Phase, st.NodeOpName = kairosv1alpha1.NodeOpPending, op.Name
	st.Message = "Created NodeOp " + op.Name
	st.ObservedGeneration = u.Generation
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{
		Type: kairosv1alpha1.ConditionProgressing, Status: metav1.ConditionFalse, Reason: reasonNodeOpCreated,
		Message: st.Message, ObservedGeneration: u.Generation,
	})
	return r.writeStatus(ctx, u, *st)
}

// halt records that the upgrade cannot go on, and why.
func (r *Reconciler) halt(ctx context.Context, u *kairosv1alpha1.NodeOpUpgrade, reason, msg string) error {
	if u.Status.Phase == kairosv1alpha1.NodeOpFailed && u.Status.Message == msg {
		return nil
	}
	r.Recorder.Eventf(u, nil, corev1.EventTypeWarning, reason, "Halt", msg)
	st := u.Status.DeepCopy()
	st.Phase, st.Message, st.ObservedGeneration = kairosv1alpha1.NodeOpFailed, msg, u.Generation
	for _, c := range []struct {
		t      string
		status metav1.ConditionStatus
	}{
		{kairosv1alpha1.ConditionProgressing, metav1.ConditionFalse},
		{kairosv1alpha1.ConditionComplete, metav1.ConditionFalse},
		{kairosv1alpha1.ConditionFailed, metav1.ConditionTrue},
	} {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: c.t, Status: c.status, Reason: reason, Message: msg, ObservedGeneration: u.Generation})
	}
	return r.writeStatus(ctx, u, *st)
}

// mirror is u's status as its NodeOp's progress says. The status describes the current spec
// once the NodeOp runs with u's pacing and has itself caught up with it.
func mirror(u *kairosv1alpha1.NodeOpUpgrade, op *kairosv1alpha1.NodeOp) kairosv1alpha1.NodeOpUpgradeStatus {
	st := *u.Status.DeepCopy()
	st.NodeOpName = op.Name
	st.Phase = op.Status.Phase
	if st.Phase == "" {
		st.Phase = kairosv1alpha1.NodeOpPending
	}
	st.Message = op.Status.Message
	st.NodeStatuses = op.Status.NodeStatuses
	st.NodeCounts = op.Status.NodeCounts
	if op.Status.ObservedGeneration == op.Generation {
		st.ObservedGeneration = u.Generation
	}
	for _, c := range op.Status.Conditions {
		c.ObservedGeneration = st.ObservedGeneration
		meta.SetStatusCondition(&st.Conditions, c)
	}
	return st
}

// writeStatus records st unless u already says the same.
func (r *Reconciler) writeStatus(ctx context.Context, u *kairosv1alpha1.NodeOpUpgrade, st kairosv1alpha1.NodeOpUpgradeStatus) error {
	st.LastUpdated = u.Status.LastUpdated
	if kairosv1alpha1.EqualNodeStatuses(st.NodeStatuses, u.Status.NodeStatuses) {
		a, b := st, u.Status
		a.NodeStatuses, b.NodeStatuses = nil, nil
		if equality.Semantic.DeepEqual(a, b) {
			return nil
		}
	}
	st.LastUpdated = metav1.NewTime(r.Now())
	u.Status = st
	if err := r.Status().Update(ctx, u); err != nil {
		if apierrors.IsConflict(err) {
			return nil // the newer NodeOpUpgrade is on its way and brings another reconcile
		}
		return fmt.Errorf("update status of NodeOpUpgrade %s: %w", u.Name, err)
	}
	return nil
}

// SetupWithManager registers the controller: it reacts to NodeOpUpgrades and their NodeOps.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("nodeopupgrade").
		For(&kairosv1alpha1.NodeOpUpgrade{}).
		Owns(&kairosv1alpha1.NodeOp{}).
		Complete(r)
}
