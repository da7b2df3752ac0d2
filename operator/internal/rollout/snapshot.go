// Package rollout decides what a NodeOp does next. Plan is a pure function from what was
// observed (the NodeOp's settings and recorded per-node status, the nodes, Jobs and pods) to
// new per-node statuses and the actions that move nodes forward. Ordering, concurrency, the
// control-plane quorum guard, stop-on-failure, pausing and deletion live here and nowhere else.
package rollout

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// Settings are the parts of a NodeOp's spec that steer the rollout.
type Settings struct {
	// Concurrency is the most nodes in flight; 0 means all.
	Concurrency int
	// AllowConcurrentControlPlane lifts the one-control-plane-node-at-a-time guard.
	AllowConcurrentControlPlane bool
	StopOnFailure               bool
	Paused                      bool
	// Deleting means the NodeOp is being deleted: start nothing, let Jobs finish, release cordons.
	Deleting bool

	Preflight         bool
	Cordon            bool
	Drain             bool
	Reboot            bool
	UncordonOnFailure bool
	// RebootTimeout is how long after its Job succeeded a node may take to come back rebooted
	// (and verified).
	RebootTimeout time.Duration
	// Verify is what a node must report after its reboot; nil checks nothing.
	Verify *kairosv1alpha1.Verification
}

// DrainState is where the drain of a node stands, as the drain runner reports it.
type DrainState int

const (
	DrainNotStarted DrainState = iota
	DrainRunning
	DrainSucceeded
	DrainFailed
)

// Node is everything observed about one target node.
type Node struct {
	Name string
	// Status is what the NodeOp's status recorded for this node so far.
	Status kairosv1alpha1.NodeStatus

	// Exists is false when the node left the cluster.
	Exists        bool
	ControlPlane  bool
	Ready         bool
	BootID        string
	Unschedulable bool
	// CordonedByUs means the node carries this NodeOp's cordon annotation.
	CordonedByUs bool

	Drain        DrainState
	DrainMessage string

	// Reported is what the node says about its system, for verification after a reboot.
	Reported Reported

	// Preflight is the preflight pod, nil when there is none.
	Preflight *PodState
	// Job is the node's Job, nil when there is none.
	Job             *JobState
	RebootPodExists bool
}

// Reported is what a node says about the system it runs.
type Reported struct {
	// Labels are the node's labels; LabelledBootID is the boot they were read in.
	Labels         map[string]string
	LabelledBootID string
	// OSImage is status.nodeInfo.osImage, refreshed by the kubelet at every start.
	OSImage string
}

// PodState is what matters of a preflight pod.
type PodState struct {
	Phase corev1.PodPhase
	// Message is the container's termination message (the reason to skip), or why it failed.
	Message string
}

// JobState is what matters of a node's Job.
type JobState struct {
	Name string
	// BootIDBefore is the node's boot ID when the Job was created.
	BootIDBefore string
	// Succeeded is true as soon as one of the Job's pods succeeded; waiting for the Job's own
	// Complete condition would cost about a second per node.
	Succeeded   bool
	SucceededAt time.Time
	// Failed is the Job's Failed condition: its retries are used up.
	Failed  bool
	Message string
	// Report is what the succeeded pod's command wrote to its termination message, as
	// KEY=VALUE pairs (see Verification.JobReportedVersion).
	Report map[string]string
}

// ActionKind is a side effect the controller performs for a node.
type ActionKind string

const (
	CreatePreflightPod ActionKind = "CreatePreflightPod"
	Cordon             ActionKind = "Cordon"
	StartDrain         ActionKind = "StartDrain"
	CancelDrain        ActionKind = "CancelDrain"
	CreateRebootPod    ActionKind = "CreateRebootPod"
	CreateJob          ActionKind = "CreateJob"
	DeleteRebootPod    ActionKind = "DeleteRebootPod"
	Uncordon           ActionKind = "Uncordon"
)

// Action is one side effect on one node.
type Action struct {
	Kind ActionKind
	Node string
}

// Result is the outcome of planning.
type Result struct {
	// Nodes holds the new status of every target node.
	Nodes map[string]kairosv1alpha1.NodeStatus
	// Actions are to be performed after the new statuses are recorded.
	Actions []Action
	// Phase and Message describe the whole operation.
	Phase   kairosv1alpha1.NodeOpPhase
	Message string
	// Stopped is true when stopOnFailure keeps remaining nodes from starting.
	Stopped bool
	// Idle is true when nothing is in flight and no cordon of ours remains: a NodeOp being
	// deleted may go.
	Idle bool
	// RequeueAfter is the nearest deadline (a reboot timeout), zero when there is none.
	RequeueAfter time.Duration
}
