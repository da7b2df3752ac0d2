package nodeop

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/rollout"
)

// Condition reasons.
const (
	reasonRunning        = "Running"
	reasonPaused         = "Paused"
	reasonStopping       = "StoppingOnFailure"
	reasonDeleting       = "Deleting"
	reasonFinished       = "Finished"
	reasonCompleted      = "AllNodesCompleted"
	reasonNodesFailed    = "NodesFailed"
	reasonNoTargets      = "NoMatchingNodes"
	reasonNotFinished    = "NotFinished"
	reasonWaitingToStart = "WaitingToStart"
)

// desiredStatus is the status op should have after the plan.
func desiredStatus(op *kairosv1alpha1.NodeOp, s rollout.Settings, res rollout.Result, now time.Time) kairosv1alpha1.NodeOpStatus {
	st := *op.Status.DeepCopy()
	st.NodeStatuses = res.Nodes
	st.NodeCounts = kairosv1alpha1.CountNodes(res.Nodes)
	st.Phase, st.Message = res.Phase, res.Message
	st.ObservedGeneration = op.Generation
	setConditions(&st, op.Generation, s, res)
	if !sameStatus(st, op.Status) {
		st.LastUpdated = metav1.NewTime(now)
	}
	return st
}

// sameStatus compares two statuses, the per-node map field by field (it is the large part).
func sameStatus(a, b kairosv1alpha1.NodeOpStatus) bool {
	if !kairosv1alpha1.EqualNodeStatuses(a.NodeStatuses, b.NodeStatuses) {
		return false
	}
	a.NodeStatuses, b.NodeStatuses = nil, nil
	return equality.Semantic.DeepEqual(a, b)
}

func setConditions(st *kairosv1alpha1.NodeOpStatus, gen int64, s rollout.Settings, res rollout.Result) {
	set := func(t string, status metav1.ConditionStatus, reason string) {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: t, Status: status, Reason: reason, Message: res.Message, ObservedGeneration: gen,
		})
	}
	switch {
	case res.Phase.Finished():
		set(kairosv1alpha1.ConditionProgressing, metav1.ConditionFalse, reasonFinished)
	case s.Deleting:
		set(kairosv1alpha1.ConditionProgressing, metav1.ConditionFalse, reasonDeleting)
	case res.Stopped:
		set(kairosv1alpha1.ConditionProgressing, metav1.ConditionFalse, reasonStopping)
	case s.Paused:
		set(kairosv1alpha1.ConditionProgressing, metav1.ConditionFalse, reasonPaused)
	case res.Phase == kairosv1alpha1.NodeOpPending:
		set(kairosv1alpha1.ConditionProgressing, metav1.ConditionFalse, reasonWaitingToStart)
	default:
		set(kairosv1alpha1.ConditionProgressing, metav1.ConditionTrue, reasonRunning)
	}
	switch res.Phase {
	case kairosv1alpha1.NodeOpCompleted:
		set(kairosv1alpha1.ConditionComplete, metav1.ConditionTrue, reasonCompleted)
		set(kairosv1alpha1.ConditionFailed, metav1.ConditionFalse, reasonCompleted)
	case kairosv1alpha1.NodeOpFailed:
		reason := reasonNodesFailed
		if st.TotalNodes == 0 {
			reason = reasonNoTargets
		}
		set(kairosv1alpha1.ConditionComplete, metav1.ConditionFalse, reason)
		set(kairosv1alpha1.ConditionFailed, metav1.ConditionTrue, reason)
	default:
		set(kairosv1alpha1.ConditionComplete, metav1.ConditionFalse, reasonNotFinished)
		set(kairosv1alpha1.ConditionFailed, metav1.ConditionFalse, reasonNotFinished)
	}
}

// reportTransitions records an Event and metrics for every node whose state changed.
func (r *Reconciler) reportTransitions(op *kairosv1alpha1.NodeOp, obs *observation, old, updated map[string]kairosv1alpha1.NodeStatus, now time.Time) {
	for name, st := range updated {
		before := old[name]
		if before.Phase != st.Phase {
			switch st.Phase {
			case kairosv1alpha1.NodePreflight, kairosv1alpha1.NodeRunning:
				if !before.Phase.InFlight() {
					r.event(op, corev1.EventTypeNormal, "NodeStarted", "Started node %s", name)
				}
			case kairosv1alpha1.NodeCompleted:
				r.event(op, corev1.EventTypeNormal, "NodeCompleted", "Node %s: %s", name, st.Message)
				r.Metrics.observeNodeDone(op, st, "completed")
			case kairosv1alpha1.NodeFailed:
				r.event(op, corev1.EventTypeWarning, "NodeFailed", "Node %s: %s", name, st.Message)
				r.Metrics.observeNodeDone(op, st, "failed")
			}
		}
		if before.RebootStatus != st.RebootStatus && st.RebootStatus == kairosv1alpha1.RebootCompleted {
			r.event(op, corev1.EventTypeNormal, "Rebooted", "Node %s rebooted and is Ready", name)
			if job := obs.job(name); job != nil {
				r.Metrics.observeReboot(job.SucceededAt, now)
			}
		}
	}
	r.Metrics.setInFlight(op, kairosv1alpha1.CountNodes(updated).RunningNodes)
}
