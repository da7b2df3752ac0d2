package rollout

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

const (
	pending   = kairosv1alpha1.NodePending
	preflight = kairosv1alpha1.NodePreflight
	running   = kairosv1alpha1.NodeRunning
	completed = kairosv1alpha1.NodeCompleted
	failed    = kairosv1alpha1.NodeFailed
)

// node builds an observed, existing, Ready, schedulable node in the given recorded phase.
func node(name string, phase kairosv1alpha1.NodePhase, opts ...func(*Node)) Node {
	n := Node{Name: name, Exists: true, Ready: true, BootID: "boot-1", Status: kairosv1alpha1.NodeStatus{Phase: phase}}
	for _, o := range opts {
		o(&n)
	}
	return n
}

func controlPlane(n *Node)     { n.ControlPlane = true }
func cordonedByUs(n *Node)     { n.Unschedulable, n.CordonedByUs = true, true }
func cordonedByOthers(n *Node) { n.Unschedulable = true }
func gone(n *Node)             { n.Exists = false }
func jobRunning(n *Node)       { n.Job = &JobState{Name: "job-" + n.Name, BootIDBefore: "boot-1"} }
func jobFailed(n *Node) {
	n.Job = &JobState{Name: "job-" + n.Name, BootIDBefore: "boot-1", Failed: true, Message: "BackoffLimitExceeded"}
}
func jobSucceededAt(t time.Time) func(*Node) {
	return func(n *Node) {
		n.Job = &JobState{Name: "job-" + n.Name, BootIDBefore: "boot-1", Succeeded: true, SucceededAt: t}
	}
}
func rebootedTo(boot string) func(*Node) { return func(n *Node) { n.BootID = boot } }
func notReady(n *Node)                   { n.Ready = false }
func withRebootPod(n *Node)              { n.RebootPodExists = true }
func drain(d DrainState, msg string) func(*Node) {
	return func(n *Node) { n.Drain, n.DrainMessage = d, msg }
}
func preflightPod(phase, msg string) func(*Node) {
	return func(n *Node) { n.Preflight = &PodState{Phase: corePhase(phase), Message: msg} }
}

type want struct {
	phases  map[string]kairosv1alpha1.NodePhase
	actions []Action
	opPhase kairosv1alpha1.NodeOpPhase
	message string // substring of the operation's message
	reboot  map[string]kairosv1alpha1.RebootStatus
	nodeMsg map[string]string // substring of node messages
	idle    *bool
	requeue time.Duration
}

func act(kind ActionKind, node string) Action { return Action{Kind: kind, Node: node} }

func TestPlan(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name     string
		settings Settings
		nodes    []Node
		want     want
	}{
		{
			name:     "concurrency 1 starts the first node in order",
			settings: Settings{Concurrency: 1},
			nodes:    []Node{node("w2", pending), node("w1", pending), node("cp", pending, controlPlane)},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"cp": running, "w1": pending, "w2": pending},
				actions: []Action{act(CreateJob, "cp")},
				opPhase: kairosv1alpha1.NodeOpRunning,
			},
		},
		{
			name:     "concurrency 2 starts two workers by name",
			settings: Settings{Concurrency: 2},
			nodes:    []Node{node("w3", pending), node("w1", pending), node("w2", pending)},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": running, "w2": running, "w3": pending},
				actions: []Action{act(CreateJob, "w1"), act(CreateJob, "w2")},
			},
		},
		{
			name:     "concurrency 0 starts every node",
			settings: Settings{Concurrency: 0},
			nodes:    []Node{node("w1", pending), node("w2", pending), node("w3", pending)},
			want:     want{phases: map[string]kairosv1alpha1.NodePhase{"w1": running, "w2": running, "w3": running}},
		},
		{
			name:     "in-flight nodes recorded in status count against concurrency",
			settings: Settings{Concurrency: 2},
			nodes:    []Node{node("w1", running), node("w2", running), node("w3", pending)},
			want: want{
				phases: map[string]kairosv1alpha1.NodePhase{"w1": running, "w2": running, "w3": pending},
				// The Jobs are not observed yet (a restart or a stale cache): re-create, by name.
				actions: []Action{act(CreateJob, "w1"), act(CreateJob, "w2")},
			},
		},
		{
			name:     "a finished node frees its slot in the same pass",
			settings: Settings{Concurrency: 1},
			nodes:    []Node{node("w1", running, jobSucceededAt(now)), node("w2", pending)},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": completed, "w2": running},
				actions: []Action{act(CreateJob, "w2")},
			},
		},
		{
			name:     "quorum guard keeps control-plane nodes one at a time",
			settings: Settings{Concurrency: 0},
			nodes: []Node{node("cp1", pending, controlPlane), node("cp2", pending, controlPlane),
				node("cp3", pending, controlPlane), node("w1", pending)},
			want: want{phases: map[string]kairosv1alpha1.NodePhase{"cp1": running, "cp2": pending, "cp3": pending, "w1": pending}},
		},
		{
			name:     "quorum guard can be lifted",
			settings: Settings{Concurrency: 2, AllowConcurrentControlPlane: true},
			nodes:    []Node{node("cp1", pending, controlPlane), node("cp2", pending, controlPlane), node("cp3", pending, controlPlane)},
			want:     want{phases: map[string]kairosv1alpha1.NodePhase{"cp1": running, "cp2": running, "cp3": pending}},
		},
		{
			name:     "workers wait for every control-plane node to finish",
			settings: Settings{Concurrency: 3},
			nodes:    []Node{node("cp1", completed, controlPlane), node("cp2", running, controlPlane, jobRunning), node("w1", pending)},
			want:     want{phases: map[string]kairosv1alpha1.NodePhase{"cp2": running, "w1": pending}, actions: []Action{}},
		},
		{
			name:     "stopOnFailure starts nothing new but lets running nodes finish",
			settings: Settings{Concurrency: 2, StopOnFailure: true},
			nodes:    []Node{node("w1", running, jobFailed), node("w2", running, jobRunning), node("w3", pending)},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": failed, "w2": running, "w3": pending},
				actions: []Action{},
				opPhase: kairosv1alpha1.NodeOpRunning,
				message: "Stopping after w1 failed",
			},
		},
		{
			name:     "stopOnFailure ends the operation once running nodes are done",
			settings: Settings{Concurrency: 2, StopOnFailure: true},
			nodes:    []Node{node("w1", failed), node("w2", completed), node("w3", pending)},
			want:     want{opPhase: kairosv1alpha1.NodeOpFailed, message: "Stopped after w1 failed; 1 nodes were not started", actions: []Action{}},
		},
		{
			name:     "without stopOnFailure a failure does not stop the rollout",
			settings: Settings{Concurrency: 1},
			nodes:    []Node{node("w1", running, jobFailed), node("w2", pending)},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": failed, "w2": running},
				actions: []Action{act(CreateJob, "w2")},
			},
		},
		{
			name:     "every node finished with a failure: Failed",
			settings: Settings{},
			nodes:    []Node{node("w1", failed), node("w2", completed)},
			want:     want{opPhase: kairosv1alpha1.NodeOpFailed, message: "1 of 2 nodes failed: w1"},
		},
		{
			name:     "every node finished: Completed, never between batches",
			settings: Settings{Concurrency: 1},
			nodes:    []Node{node("w1", completed), node("w2", running, jobSucceededAt(now))},
			want:     want{opPhase: kairosv1alpha1.NodeOpCompleted, message: "All 2 nodes completed", idle: &yes},
		},
		{
			name:     "paused starts nothing",
			settings: Settings{Concurrency: 1, Paused: true},
			nodes:    []Node{node("w1", pending), node("w2", pending)},
			want:     want{phases: map[string]kairosv1alpha1.NodePhase{"w1": pending}, opPhase: kairosv1alpha1.NodeOpPending, message: "Paused", actions: []Action{}},
		},
		{
			name:     "paused lets a running node finish",
			settings: Settings{Concurrency: 1, Paused: true},
			nodes:    []Node{node("w1", running, jobSucceededAt(now)), node("w2", pending)},
			want:     want{phases: map[string]kairosv1alpha1.NodePhase{"w1": completed, "w2": pending}, opPhase: kairosv1alpha1.NodeOpRunning, actions: []Action{}},
		},
		{
			name:     "no target nodes ends at once",
			settings: Settings{},
			nodes:    nil,
			want:     want{opPhase: kairosv1alpha1.NodeOpFailed, message: "No nodes match"},
		},
		{
			name:     "a pending node that left the cluster is skipped",
			settings: Settings{Concurrency: 1},
			nodes:    []Node{node("w1", pending, gone), node("w2", pending)},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": completed, "w2": running},
				nodeMsg: map[string]string{"w1": "no longer exists"},
			},
		},

		// Preflight
		{
			name:     "preflight comes first",
			settings: Settings{Concurrency: 1, Preflight: true, Cordon: true},
			nodes:    []Node{node("w1", pending)},
			want:     want{phases: map[string]kairosv1alpha1.NodePhase{"w1": preflight}, actions: []Action{act(CreatePreflightPod, "w1")}},
		},
		{
			name:     "preflight with a reason skips the node without cordoning",
			settings: Settings{Concurrency: 1, Preflight: true, Cordon: true, Reboot: true},
			nodes:    []Node{node("w1", preflight, preflightPod("Succeeded", "already at v3.4.2\n")), node("w2", pending)},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": completed, "w2": preflight},
				actions: []Action{act(CreatePreflightPod, "w2")},
				nodeMsg: map[string]string{"w1": "Skipped by preflight: already at v3.4.2"},
				reboot:  map[string]kairosv1alpha1.RebootStatus{"w1": kairosv1alpha1.RebootNotRequested},
			},
		},
		{
			name:     "preflight without a reason proceeds",
			settings: Settings{Concurrency: 1, Preflight: true, Cordon: true},
			nodes:    []Node{node("w1", preflight, preflightPod("Succeeded", ""))},
			want:     want{phases: map[string]kairosv1alpha1.NodePhase{"w1": running}, actions: []Action{act(Cordon, "w1")}},
		},
		{
			name:     "a failed preflight fails the node",
			settings: Settings{Concurrency: 1, Preflight: true},
			nodes:    []Node{node("w1", preflight, preflightPod("Failed", "DeadlineExceeded"))},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": failed},
				nodeMsg: map[string]string{"w1": "Preflight check failed: DeadlineExceeded"},
			},
		},
		{
			name:     "a running preflight is waited for",
			settings: Settings{Concurrency: 1, Preflight: true},
			nodes:    []Node{node("w1", preflight, preflightPod("Running", "")), node("w2", pending)},
			want:     want{phases: map[string]kairosv1alpha1.NodePhase{"w1": preflight, "w2": pending}, actions: []Action{}},
		},

		// Cordon and drain
		{
			name:     "cordon before anything else",
			settings: Settings{Concurrency: 1, Cordon: true, Drain: true},
			nodes:    []Node{node("w1", pending)},
			want:     want{actions: []Action{act(Cordon, "w1")}},
		},
		{
			name:     "a node cordoned by someone else is neither cordoned nor uncordoned by us",
			settings: Settings{Concurrency: 1, Cordon: true},
			nodes:    []Node{node("w1", running, cordonedByOthers), node("w2", running, cordonedByOthers, jobSucceededAt(now))},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": running, "w2": completed},
				actions: []Action{act(CreateJob, "w1")},
			},
		},
		{
			name:     "drain after cordon, then the Job",
			settings: Settings{Concurrency: 0, Cordon: true, Drain: true},
			nodes: []Node{
				node("w1", running, cordonedByUs),
				node("w2", running, cordonedByUs, drain(DrainRunning, "")),
				node("w3", running, cordonedByUs, drain(DrainSucceeded, "")),
			},
			want: want{actions: []Action{act(StartDrain, "w1"), act(CreateJob, "w3")}},
		},
		{
			name:     "a failed drain fails the node and keeps it cordoned",
			settings: Settings{Concurrency: 1, Cordon: true, Drain: true},
			nodes:    []Node{node("w1", running, cordonedByUs, drain(DrainFailed, "pods blocked by a PodDisruptionBudget: default/db-0"))},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": failed},
				actions: []Action{},
				nodeMsg: map[string]string{"w1": "default/db-0"},
			},
		},
		{
			name:     "uncordonOnFailure uncordons before recording the failure",
			settings: Settings{Concurrency: 1, Cordon: true, UncordonOnFailure: true},
			nodes:    []Node{node("w1", running, cordonedByUs, jobFailed)},
			want:     want{phases: map[string]kairosv1alpha1.NodePhase{"w1": running}, actions: []Action{act(Uncordon, "w1")}},
		},
		{
			name:     "success uncordons, then completes",
			settings: Settings{Concurrency: 1, Cordon: true},
			nodes:    []Node{node("w1", running, cordonedByUs, jobSucceededAt(now))},
			want:     want{phases: map[string]kairosv1alpha1.NodePhase{"w1": running}, actions: []Action{act(Uncordon, "w1")}, idle: &no},
		},

		// Reboot
		{
			name:     "reboot pod before the Job",
			settings: Settings{Concurrency: 1, Reboot: true, RebootTimeout: time.Minute},
			nodes:    []Node{node("w1", pending)},
			want: want{
				actions: []Action{act(CreateRebootPod, "w1"), act(CreateJob, "w1")},
				reboot:  map[string]kairosv1alpha1.RebootStatus{"w1": kairosv1alpha1.RebootPending},
			},
		},
		{
			name:     "after success the node is waited for until it reboots",
			settings: Settings{Concurrency: 1, Reboot: true, RebootTimeout: 10 * time.Minute},
			nodes:    []Node{node("w1", running, withRebootPod, jobSucceededAt(now.Add(-time.Minute)))},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": running},
				reboot:  map[string]kairosv1alpha1.RebootStatus{"w1": kairosv1alpha1.RebootPending},
				requeue: 9 * time.Minute,
				actions: []Action{},
			},
		},
		{
			name:     "a new boot ID without Ready is not a finished reboot",
			settings: Settings{Concurrency: 1, Reboot: true, RebootTimeout: 10 * time.Minute},
			nodes:    []Node{node("w1", running, withRebootPod, jobSucceededAt(now), rebootedTo("boot-2"), notReady)},
			want:     want{phases: map[string]kairosv1alpha1.NodePhase{"w1": running}, reboot: map[string]kairosv1alpha1.RebootStatus{"w1": kairosv1alpha1.RebootPending}, requeue: 10 * time.Minute},
		},
		{
			name:     "a new boot ID and Ready complete the reboot and the node",
			settings: Settings{Concurrency: 1, Reboot: true, RebootTimeout: 10 * time.Minute},
			nodes:    []Node{node("w1", running, withRebootPod, jobSucceededAt(now), rebootedTo("boot-2"))},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": completed},
				reboot:  map[string]kairosv1alpha1.RebootStatus{"w1": kairosv1alpha1.RebootCompleted},
				actions: []Action{act(DeleteRebootPod, "w1")},
			},
		},
		{
			name:     "a reboot that never happens fails the node after the timeout",
			settings: Settings{Concurrency: 1, Reboot: true, RebootTimeout: 10 * time.Minute, StopOnFailure: true},
			nodes:    []Node{node("w1", running, withRebootPod, jobSucceededAt(now.Add(-10*time.Minute))), node("w2", pending)},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": failed, "w2": pending},
				nodeMsg: map[string]string{"w1": "did not reboot"},
				opPhase: kairosv1alpha1.NodeOpFailed,
				actions: []Action{act(DeleteRebootPod, "w1")},
			},
		},
		{
			name:     "a failed Job cancels the reboot",
			settings: Settings{Concurrency: 1, Reboot: true, RebootTimeout: time.Minute},
			nodes:    []Node{node("w1", running, withRebootPod, jobFailed, func(n *Node) { n.Status.RebootStatus = kairosv1alpha1.RebootPending })},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": failed},
				reboot:  map[string]kairosv1alpha1.RebootStatus{"w1": kairosv1alpha1.RebootCancelled},
				actions: []Action{act(DeleteRebootPod, "w1")},
			},
		},

		// Deletion
		{
			name:     "deleting starts nothing, cancels unstarted Jobs and releases cordons",
			settings: Settings{Concurrency: 0, Deleting: true, Cordon: true, Drain: true},
			nodes: []Node{
				node("w1", running, cordonedByUs, drain(DrainRunning, "")),
				node("w2", running, cordonedByUs, jobRunning),
				node("w3", failed, cordonedByUs),
				node("w4", pending),
			},
			want: want{
				phases:  map[string]kairosv1alpha1.NodePhase{"w1": running, "w2": running, "w3": failed, "w4": pending},
				actions: []Action{act(CancelDrain, "w1"), act(Uncordon, "w1"), act(Uncordon, "w3")},
				idle:    &no,
			},
		},
		{
			name:     "deleting is idle once nothing runs and nothing is cordoned",
			settings: Settings{Concurrency: 0, Deleting: true, Cordon: true},
			nodes:    []Node{node("w1", completed), node("w2", failed), node("w3", pending)},
			want:     want{idle: &yes, actions: []Action{}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Plan(tc.settings, tc.nodes, now)
			for name, phase := range tc.want.phases {
				if got := res.Nodes[name].Phase; got != phase {
					t.Errorf("node %s: phase %q, want %q (message %q)", name, got, phase, res.Nodes[name].Message)
				}
			}
			for name, reboot := range tc.want.reboot {
				if got := res.Nodes[name].RebootStatus; got != reboot {
					t.Errorf("node %s: rebootStatus %q, want %q", name, got, reboot)
				}
			}
			for name, msg := range tc.want.nodeMsg {
				if got := res.Nodes[name].Message; !strings.Contains(got, msg) {
					t.Errorf("node %s: message %q, want it to contain %q", name, got, msg)
				}
			}
			if tc.want.actions != nil && !slices.Equal(res.Actions, tc.want.actions) && !(len(res.Actions) == 0 && len(tc.want.actions) == 0) {
				t.Errorf("actions = %v, want %v", res.Actions, tc.want.actions)
			}
			if tc.want.opPhase != "" && res.Phase != tc.want.opPhase {
				t.Errorf("phase %q, want %q (%s)", res.Phase, tc.want.opPhase, res.Message)
			}
			if !strings.Contains(res.Message, tc.want.message) {
				t.Errorf("message %q, want it to contain %q", res.Message, tc.want.message)
			}
			if tc.want.idle != nil && res.Idle != *tc.want.idle {
				t.Errorf("idle = %v, want %v", res.Idle, *tc.want.idle)
			}
			if res.RequeueAfter != tc.want.requeue {
				t.Errorf("requeueAfter = %v, want %v", res.RequeueAfter, tc.want.requeue)
			}
		})
	}
}

func TestPlanLeavesUnchangedStatusesAlone(t *testing.T) {
	earlier := metav1.NewTime(now.Add(-time.Hour))
	recorded := kairosv1alpha1.NodeStatus{
		Phase: running, JobName: "job-w1", Message: "Job running",
		RebootStatus: kairosv1alpha1.RebootNotRequested, StartedAt: &earlier, LastUpdated: earlier,
	}
	res := Plan(Settings{Concurrency: 1}, []Node{node("w1", running, jobRunning, func(n *Node) { n.Status = recorded })}, now)
	if got := res.Nodes["w1"]; !got.LastUpdated.Equal(&earlier) {
		t.Errorf("lastUpdated moved to %v though nothing changed", got.LastUpdated)
	}
}

func TestPlanRecordsStartAndFinishTimes(t *testing.T) {
	res := Plan(Settings{Concurrency: 1}, []Node{node("w1", pending)}, now)
	if st := res.Nodes["w1"]; st.StartedAt == nil || !st.StartedAt.Time.Equal(now) || st.FinishedAt != nil {
		t.Fatalf("started %v finished %v", st.StartedAt, st.FinishedAt)
	}
	n := node("w1", running, jobSucceededAt(now))
	n.Status = res.Nodes["w1"]
	later := now.Add(time.Minute)
	st := Plan(Settings{Concurrency: 1}, []Node{n}, later).Nodes["w1"]
	if st.FinishedAt == nil || !st.FinishedAt.Time.Equal(later) || !st.StartedAt.Time.Equal(now) {
		t.Fatalf("started %v finished %v", st.StartedAt, st.FinishedAt)
	}
}

func corePhase(p string) corev1.PodPhase { return corev1.PodPhase(p) }

func TestPlanAdoptsNodesStartedByALostStatusWrite(t *testing.T) {
	// The previous pass created w1's Job and cordoned w2, but its status write did not land.
	nodes := []Node{
		node("w1", pending, jobRunning),
		node("w2", pending, cordonedByUs),
		node("w3", pending),
		node("w4", pending),
	}
	res := Plan(Settings{Concurrency: 3, Cordon: true}, nodes, now)
	want := map[string]kairosv1alpha1.NodePhase{"w1": running, "w2": running, "w3": running, "w4": pending}
	for name, phase := range want {
		if got := res.Nodes[name].Phase; got != phase {
			t.Errorf("node %s: %q, want %q", name, got, phase)
		}
	}
	// w2 is cordoned by us: it goes on to its Job; w3 is the one new start.
	if wantActs := []Action{act(CreateJob, "w2"), act(Cordon, "w3")}; !slices.Equal(res.Actions, wantActs) {
		t.Errorf("actions %v, want %v", res.Actions, wantActs)
	}
}
