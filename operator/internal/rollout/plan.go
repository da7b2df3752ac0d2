package rollout

import (
	"fmt"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// Plan moves every node as far as the observations allow, starts as many new nodes as pacing
// permits, and summarises the operation.
//
// Starting a node is a status change (Pending to Preflight or Running) plus the node's first
// action, which leaves a mark in the cluster (a preflight pod, our cordon, a reboot pod or a
// Job). A Pending node that carries such a mark was started by a pass whose status write did
// not land (a restart, a conflict): it is adopted as in flight. Since pending nodes start in a
// fixed order, a stale view can only pick the same nodes again, and names are deterministic, so
// nothing runs twice and the concurrency holds.
func Plan(s Settings, nodes []Node, now time.Time) Result {
	res := Result{Nodes: make(map[string]kairosv1alpha1.NodeStatus, len(nodes))}
	p := planner{s: s, now: now, res: &res}

	for _, n := range nodes {
		res.Nodes[n.Name] = p.step(n, n.Status)
	}
	p.startNodes(orderForRollout(nodes))
	for _, n := range nodes {
		res.Nodes[n.Name] = keepTimestampIfUnchanged(n.Status, res.Nodes[n.Name])
	}
	p.summarise(nodes)
	return res
}

// keepTimestampIfUnchanged keeps the recorded lastUpdated when nothing else changed, so that a
// reconcile that changes nothing writes nothing.
func keepTimestampIfUnchanged(recorded, planned kairosv1alpha1.NodeStatus) kairosv1alpha1.NodeStatus {
	cmp := planned
	cmp.LastUpdated = recorded.LastUpdated
	if cmp.Equal(recorded) {
		return recorded
	}
	return planned
}

type planner struct {
	s    Settings
	now  time.Time
	res  *Result
	wake time.Time
}

// orderForRollout puts control-plane nodes first, then the rest, each by name.
func orderForRollout(nodes []Node) []Node {
	out := append([]Node(nil), nodes...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].ControlPlane != out[j].ControlPlane {
			return out[i].ControlPlane
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// startNodes starts pending nodes in order while pacing allows.
func (p *planner) startNodes(ordered []Node) {
	inFlight, cpInFlight, cpUnfinished, anyFailed := 0, 0, false, false
	for _, n := range ordered {
		phase := p.res.Nodes[n.Name].Phase
		if phase.InFlight() {
			inFlight++
			if n.ControlPlane {
				cpInFlight++
			}
		}
		if n.ControlPlane && !phase.Finished() {
			cpUnfinished = true
		}
		if phase == kairosv1alpha1.NodeFailed {
			anyFailed = true
		}
	}
	p.res.Stopped = p.s.StopOnFailure && anyFailed
	if p.s.Paused || p.s.Deleting || p.res.Stopped {
		return
	}
	limit := p.s.Concurrency
	if limit <= 0 {
		limit = len(ordered)
	}
	for _, n := range ordered {
		st := p.res.Nodes[n.Name]
		if st.Phase != kairosv1alpha1.NodePending && st.Phase != "" {
			continue
		}
		if inFlight >= limit {
			return
		}
		if n.ControlPlane && !p.s.AllowConcurrentControlPlane && cpInFlight > 0 {
			return // quorum guard: one control-plane node at a time
		}
		if !n.ControlPlane && cpUnfinished {
			return // workers wait until every control-plane node is done
		}
		if !n.Exists {
			p.res.Nodes[n.Name] = p.finish(st, kairosv1alpha1.NodeCompleted, "Skipped: the node no longer exists")
			continue
		}
		st.Phase = kairosv1alpha1.NodeRunning
		if p.s.Preflight {
			st.Phase = kairosv1alpha1.NodePreflight
		}
		st.StartedAt = p.stamp()
		st = p.step(n, p.touch(st, "Starting"))
		p.res.Nodes[n.Name] = st
		if st.Phase.InFlight() {
			inFlight++
			if n.ControlPlane {
				cpInFlight++
			}
		}
	}
}

// step moves one node forward from its recorded status.
func (p *planner) step(n Node, st kairosv1alpha1.NodeStatus) kairosv1alpha1.NodeStatus {
	if st.RebootStatus == "" {
		st.RebootStatus = kairosv1alpha1.RebootNotRequested
		if p.s.Reboot {
			st.RebootStatus = kairosv1alpha1.RebootPending
		}
	}
	switch st.Phase {
	case kairosv1alpha1.NodePreflight:
		st = p.preflight(n, st)
	case kairosv1alpha1.NodeRunning:
		st = p.run(n, st)
	case kairosv1alpha1.NodePending, "":
		st = p.adopt(n, st)
	}
	if st.Phase.Finished() {
		p.cleanUp(n)
	}
	return st
}

// adopt treats a Pending node that already carries a mark of ours as started.
func (p *planner) adopt(n Node, st kairosv1alpha1.NodeStatus) kairosv1alpha1.NodeStatus {
	st.Phase = kairosv1alpha1.NodePending
	if n.Job == nil && !n.RebootPodExists && !n.CordonedByUs && n.Preflight == nil {
		return st
	}
	st.Phase = kairosv1alpha1.NodeRunning
	if n.Preflight != nil && n.Job == nil && !n.RebootPodExists && !n.CordonedByUs {
		st.Phase = kairosv1alpha1.NodePreflight
	}
	if st.StartedAt == nil {
		st.StartedAt = p.stamp()
	}
	return p.step(n, st)
}

// cleanUp removes what a finished node no longer needs; on deletion it also releases cordons,
// so no node stays cordoned by a NodeOp that no longer exists.
func (p *planner) cleanUp(n Node) {
	if n.RebootPodExists {
		p.act(DeleteRebootPod, n)
	}
	if p.s.Deleting && n.CordonedByUs {
		p.act(Uncordon, n)
	}
}

func (p *planner) preflight(n Node, st kairosv1alpha1.NodeStatus) kairosv1alpha1.NodeStatus {
	if !n.Exists {
		return p.fail(n, st, "The node left the cluster during the preflight check")
	}
	if n.Preflight == nil {
		if p.s.Deleting {
			return p.finish(st, kairosv1alpha1.NodeCompleted, "Skipped: the NodeOp was deleted before the node started")
		}
		p.act(CreatePreflightPod, n)
		return p.touch(st, "Running the preflight check")
	}
	switch n.Preflight.Phase {
	case "Succeeded":
		if reason := strings.TrimSpace(n.Preflight.Message); reason != "" {
			st.RebootStatus = kairosv1alpha1.RebootNotRequested
			return p.finish(st, kairosv1alpha1.NodeCompleted, "Skipped by preflight: "+reason)
		}
		st.Phase = kairosv1alpha1.NodeRunning
		return p.run(n, st)
	case "Failed":
		return p.fail(n, st, "Preflight check failed: "+orDefault(n.Preflight.Message, "the check exited with an error"))
	}
	return p.touch(st, "Running the preflight check")
}

func (p *planner) run(n Node, st kairosv1alpha1.NodeStatus) kairosv1alpha1.NodeStatus {
	if !n.Exists {
		return p.fail(n, st, "The node left the cluster while the operation ran")
	}
	if n.Job == nil {
		return p.prepare(n, st)
	}
	st.JobName = n.Job.Name
	if n.Job.Failed {
		return p.fail(n, st, "Job failed: "+orDefault(n.Job.Message, "its retries are used up"))
	}
	if !n.Job.Succeeded {
		return p.touch(st, "Job running")
	}
	if p.s.Reboot && st.RebootStatus != kairosv1alpha1.RebootCompleted {
		rebooted := n.BootID != "" && n.BootID != n.Job.BootIDBefore && n.Ready
		if !rebooted {
			deadline := n.Job.SucceededAt.Add(p.s.RebootTimeout)
			if !p.now.Before(deadline) {
				return p.fail(n, st, fmt.Sprintf("The node did not reboot and become Ready within %s after its Job succeeded", p.s.RebootTimeout))
			}
			p.wakeAt(deadline)
			return p.touch(st, "Waiting for the node to reboot")
		}
		st.RebootStatus = kairosv1alpha1.RebootCompleted
	}
	verified := ""
	if p.s.Verify != nil && st.RebootStatus == kairosv1alpha1.RebootCompleted {
		var outcome verdict
		if verified, outcome = verify(p.s.Verify, n); outcome != verdictPassed {
			deadline := n.Job.SucceededAt.Add(p.s.RebootTimeout)
			if outcome == verdictFailed || !p.now.Before(deadline) {
				return p.fail(n, st, "Upgrade not verified: "+verified)
			}
			p.wakeAt(deadline)
			return p.touch(st, "Verifying: "+verified)
		}
	}
	if n.CordonedByUs {
		p.act(Uncordon, n)
		return p.touch(st, joinMessage("Uncordoning", verified))
	}
	return p.finish(st, kairosv1alpha1.NodeCompleted, joinMessage("Completed", verified))
}

// prepare cordons and drains a started node, then creates its reboot pod and Job.
func (p *planner) prepare(n Node, st kairosv1alpha1.NodeStatus) kairosv1alpha1.NodeStatus {
	if p.s.Deleting {
		if n.Drain == DrainRunning {
			p.act(CancelDrain, n)
		}
		if n.CordonedByUs {
			p.act(Uncordon, n)
			return p.touch(st, "Cancelling: the NodeOp is being deleted")
		}
		return p.finish(st, kairosv1alpha1.NodeFailed, "Cancelled before its Job started: the NodeOp was deleted")
	}
	// A node that someone else cordoned stays cordoned and is not ours to uncordon.
	if p.s.Cordon && !n.Unschedulable {
		p.act(Cordon, n)
		return p.touch(st, "Cordoning")
	}
	if p.s.Drain {
		switch n.Drain {
		case DrainNotStarted:
			p.act(StartDrain, n)
			return p.touch(st, "Draining")
		case DrainRunning:
			return p.touch(st, "Draining")
		case DrainFailed:
			return p.fail(n, st, "Drain failed: "+orDefault(n.DrainMessage, "unknown error"))
		}
	}
	if p.s.Reboot && !n.RebootPodExists {
		p.act(CreateRebootPod, n)
	}
	p.act(CreateJob, n)
	return p.touch(st, "Job created")
}

// fail ends a node as Failed, after uncordoning it first when the NodeOp asks for that.
func (p *planner) fail(n Node, st kairosv1alpha1.NodeStatus, why string) kairosv1alpha1.NodeStatus {
	if n.Drain == DrainRunning {
		p.act(CancelDrain, n)
	}
	if p.s.UncordonOnFailure && n.CordonedByUs {
		p.act(Uncordon, n)
		return p.touch(st, why+"; uncordoning")
	}
	if st.RebootStatus == kairosv1alpha1.RebootPending {
		st.RebootStatus = kairosv1alpha1.RebootCancelled
	}
	return p.finish(st, kairosv1alpha1.NodeFailed, why)
}

func (p *planner) finish(st kairosv1alpha1.NodeStatus, phase kairosv1alpha1.NodePhase, msg string) kairosv1alpha1.NodeStatus {
	st.Phase = phase
	if st.FinishedAt == nil {
		st.FinishedAt = p.stamp()
	}
	return p.touch(st, msg)
}

// touch sets the message and lastUpdated (kept by Plan when nothing else changed).
func (p *planner) touch(st kairosv1alpha1.NodeStatus, msg string) kairosv1alpha1.NodeStatus {
	st.Message = msg
	st.LastUpdated = *p.stamp()
	return st
}

func (p *planner) stamp() *metav1.Time {
	t := metav1.NewTime(p.now)
	return &t
}

func (p *planner) act(kind ActionKind, n Node) {
	p.res.Actions = append(p.res.Actions, Action{Kind: kind, Node: n.Name})
}

func (p *planner) wakeAt(t time.Time) {
	if p.wake.IsZero() || t.Before(p.wake) {
		p.wake = t
	}
}

// joinMessage appends detail to msg, when there is any.
func joinMessage(msg, detail string) string {
	if detail == "" {
		return msg
	}
	return msg + ": " + detail
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
