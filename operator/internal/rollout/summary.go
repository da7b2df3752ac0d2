package rollout

import (
	"fmt"
	"sort"
	"strings"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// summarise sets the operation's phase and message, whether it is idle and when to wake up.
func (p *planner) summarise(nodes []Node) {
	res := p.res
	if !p.wake.IsZero() {
		res.RequeueAfter = p.wake.Sub(p.now)
	}
	if len(nodes) == 0 {
		res.Phase, res.Message, res.Idle = kairosv1alpha1.NodeOpFailed, "No nodes match the node selector; nothing was done", true
		return
	}

	counts := kairosv1alpha1.CountNodes(res.Nodes)
	var failed []string
	started, skipped := false, 0
	for name, st := range res.Nodes {
		switch {
		case st.Phase == kairosv1alpha1.NodeFailed:
			failed = append(failed, name)
		case st.Phase == kairosv1alpha1.NodeCompleted && strings.HasPrefix(st.Message, "Skipped"):
			skipped++
		}
		if st.Phase != kairosv1alpha1.NodePending {
			started = true
		}
	}
	sort.Strings(failed)
	res.Idle = counts.RunningNodes == 0
	for _, n := range nodes {
		if n.CordonedByUs {
			res.Idle = false
		}
	}

	finished := counts.CompletedNodes + counts.FailedNodes
	switch {
	case finished == counts.TotalNodes && len(failed) > 0:
		res.Phase = kairosv1alpha1.NodeOpFailed
		res.Message = fmt.Sprintf("%d of %d nodes failed: %s", len(failed), counts.TotalNodes, listNames(failed))
	case finished == counts.TotalNodes:
		res.Phase = kairosv1alpha1.NodeOpCompleted
		res.Message = fmt.Sprintf("All %d nodes completed", counts.TotalNodes)
		if skipped > 0 {
			res.Message += fmt.Sprintf(" (%d skipped)", skipped)
		}
	case res.Stopped && counts.RunningNodes == 0:
		res.Phase = kairosv1alpha1.NodeOpFailed
		res.Message = fmt.Sprintf("Stopped after %s failed; %d nodes were not started", listNames(failed), counts.TotalNodes-finished)
	case !started:
		res.Phase = kairosv1alpha1.NodeOpPending
		res.Message = "Waiting to start"
	default:
		res.Phase = kairosv1alpha1.NodeOpRunning
		res.Message = fmt.Sprintf("%d in flight, %d of %d done", counts.RunningNodes, finished, counts.TotalNodes)
		if len(failed) > 0 {
			res.Message += fmt.Sprintf(", %d failed", len(failed))
		}
	}
	if !res.Phase.Finished() {
		switch {
		case p.s.Deleting:
			res.Message = "Deleting: letting running nodes finish; " + res.Message
		case res.Stopped:
			res.Message = fmt.Sprintf("Stopping after %s failed: letting running nodes finish; %s", listNames(failed), res.Message)
		case p.s.Paused:
			res.Message = "Paused: no new node starts; " + res.Message
		}
	}
}

// listNames names a few nodes, enough to act on, without flooding a status line.
func listNames(names []string) string {
	const most = 5
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}
