package v1alpha1

import "fmt"

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
