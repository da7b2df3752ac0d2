package v1alpha1

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Finished reports whether the node will see no more work.
func (p NodePhase) Finished() bool { return p == NodeCompleted || p == NodeFailed }

// InFlight reports whether work on the node has started and not finished.
func (p NodePhase) InFlight() bool { return p == NodePreflight || p == NodeRunning }

// Finished reports whether the operation will do nothing more.
func (p NodeOpPhase) Finished() bool { return p == NodeOpCompleted || p == NodeOpFailed }

// CountNodes summarises per-node statuses for the printer columns.
func CountNodes(statuses map[string]NodeStatus) NodeCounts {
	var c NodeCounts
	for _, s := range statuses {
		c.TotalNodes++
		switch {
		case s.Phase == NodeCompleted:
			c.CompletedNodes++
		case s.Phase == NodeFailed:
			c.FailedNodes++
		case s.Phase.InFlight():
			c.RunningNodes++
		}
	}
	c.Progress = fmt.Sprintf("%d/%d", c.CompletedNodes+c.FailedNodes, c.TotalNodes)
	return c
}

// Equal reports whether two node statuses say the same, timestamps included. It is a cheap
// stand-in for a reflective comparison, run for every node on every reconcile.
func (s NodeStatus) Equal(o NodeStatus) bool {
	return s.Phase == o.Phase && s.JobName == o.JobName && s.Message == o.Message &&
		s.RebootStatus == o.RebootStatus && s.LastUpdated.Equal(&o.LastUpdated) &&
		sameTime(s.StartedAt, o.StartedAt) && sameTime(s.FinishedAt, o.FinishedAt)
}

// EqualNodeStatuses compares two per-node status maps with NodeStatus.Equal.
func EqualNodeStatuses(a, b map[string]NodeStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for name, sa := range a {
		sb, ok := b[name]
		if !ok || !sa.Equal(sb) {
			return false
		}
	}
	return true
}

func sameTime(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(b)
}
