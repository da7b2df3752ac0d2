package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeOpSpec says what to run on which nodes, and how fast.
//
// A NodeOp is a one-shot operation: what it does (command, image, targets, host mount, cordon,
// drain, reboot) is fixed at creation. Only the pacing (concurrency, stopOnFailure, paused) and
// the retry/failure policy may change while it runs.
//
// +kubebuilder:validation:XValidation:rule="!has(self.drainOptions) || !self.drainOptions.enabled || self.cordon",message="drainOptions.enabled requires cordon: true; a node must be cordoned before it is drained",fieldPath=.drainOptions.enabled
// +kubebuilder:validation:XValidation:rule="self.command == oldSelf.command",message="command cannot be changed once the NodeOp exists; create a new NodeOp to run a different command",fieldPath=.command
// +kubebuilder:validation:XValidation:rule="has(self.image) == has(oldSelf.image) && (!has(self.image) || self.image == oldSelf.image)",message="image cannot be changed once the NodeOp exists; create a new NodeOp",fieldPath=.image
// +kubebuilder:validation:XValidation:rule="has(self.nodeSelector) == has(oldSelf.nodeSelector) && (!has(self.nodeSelector) || self.nodeSelector == oldSelf.nodeSelector)",message="nodeSelector cannot be changed once the NodeOp exists; create a new NodeOp for other nodes",fieldPath=.nodeSelector
// +kubebuilder:validation:XValidation:rule="self.hostMountPath == oldSelf.hostMountPath",message="hostMountPath cannot be changed once the NodeOp exists; create a new NodeOp",fieldPath=.hostMountPath
// +kubebuilder:validation:XValidation:rule="self.cordon == oldSelf.cordon",message="cordon cannot be changed once the NodeOp exists; create a new NodeOp",fieldPath=.cordon
// +kubebuilder:validation:XValidation:rule="has(self.drainOptions) == has(oldSelf.drainOptions) && (!has(self.drainOptions) || self.drainOptions == oldSelf.drainOptions)",message="drainOptions cannot be changed once the NodeOp exists; create a new NodeOp",fieldPath=.drainOptions
// +kubebuilder:validation:XValidation:rule="has(self.preflight) == has(oldSelf.preflight) && (!has(self.preflight) || self.preflight == oldSelf.preflight)",message="preflight cannot be changed once the NodeOp exists; create a new NodeOp",fieldPath=.preflight
// +kubebuilder:validation:XValidation:rule="!has(self.verify) || self.rebootOnSuccess",message="verify requires rebootOnSuccess: true; nodes are verified after their reboot",fieldPath=.verify
// +kubebuilder:validation:XValidation:rule="has(self.verify) == has(oldSelf.verify) && (!has(self.verify) || self.verify == oldSelf.verify)",message="verify cannot be changed once the NodeOp exists; create a new NodeOp",fieldPath=.verify
// +kubebuilder:validation:XValidation:rule="self.rebootOnSuccess == oldSelf.rebootOnSuccess",message="rebootOnSuccess cannot be changed once the NodeOp exists; create a new NodeOp",fieldPath=.rebootOnSuccess
type NodeOpSpec struct {
	// NodeSelector picks the target nodes. When absent, every node is a target. The targets are
	// fixed when the NodeOp starts: nodes that join later are not included.
	// +optional
	NodeSelector *NodeSelector `json:"nodeSelector,omitempty"`

	// Image is the container image the command runs in. When empty, the operator's default
	// image is used (busybox unless the operator was started with another).
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`

	// ImagePullSecrets name Secrets in the NodeOp's namespace used to pull Image.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`

	// Command runs on every target node in a privileged container with the host's root
	// filesystem mounted at HostMountPath (also in the HOST_DIR environment variable).
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=65536
	// +kubebuilder:validation:XValidation:rule="self[0] != ''",message="command[0] must name the program to run"
	Command []string `json:"command"`

	// HostMountPath is where the node's root filesystem is mounted in the container.
	// +optional
	// +kubebuilder:default="/host"
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="self.startsWith('/') && self != '/'",message="hostMountPath must be an absolute path other than /"
	HostMountPath string `json:"hostMountPath,omitempty"`

	// Cordon marks each node unschedulable before the command runs and schedulable again once it
	// succeeded. Nodes that were already cordoned by someone else stay cordoned.
	// +optional
	// +kubebuilder:default=false
	Cordon bool `json:"cordon"`

	// DrainOptions evicts the node's pods before the command runs. Draining requires Cordon.
	// +optional
	DrainOptions *DrainOptions `json:"drainOptions,omitempty"`

	// RebootOnSuccess reboots each node after its command succeeded. The node counts as done
	// only once it has really rebooted (new boot ID) and is Ready again.
	// +optional
	// +kubebuilder:default=false
	RebootOnSuccess bool `json:"rebootOnSuccess"`

	// BackoffLimit is how many times a node's Job is retried before the node counts as failed.
	// +optional
	// +kubebuilder:default=6
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	BackoffLimit *int32 `json:"backoffLimit,omitempty"`

	// Concurrency is the most nodes worked on at once; 0 means all target nodes at once.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	Concurrency int32 `json:"concurrency"`

	// StopOnFailure starts no new node once a node has failed; nodes already in flight finish.
	// +optional
	// +kubebuilder:default=false
	StopOnFailure bool `json:"stopOnFailure"`

	// UncordonOnFailure makes a node schedulable again after its operation failed. By default a
	// failed node stays cordoned so that it can be looked at.
	// +optional
	// +kubebuilder:default=false
	UncordonOnFailure bool `json:"uncordonOnFailure"`

	// Paused starts no new node while true; nodes already in flight finish. Setting it back to
	// false continues where the operation stopped.
	// +optional
	// +kubebuilder:default=false
	Paused bool `json:"paused"`

	// AllowConcurrentControlPlane lets more than one control-plane node be in flight at once.
	// By default control-plane nodes go one at a time, whatever Concurrency says, so that the
	// cluster keeps its quorum.
	// +optional
	// +kubebuilder:default=false
	AllowConcurrentControlPlane bool `json:"allowConcurrentControlPlane"`

	// Preflight runs a check on each node before anything else happens to it; the check can
	// skip the node (for example because it already runs the target version).
	// +optional
	Preflight *Preflight `json:"preflight,omitempty"`

	// Verify says what each node must report once it is back from its reboot; a node that
	// reports otherwise fails. NodeOpUpgrade uses it to check that the new version really booted.
	// +optional
	Verify *Verification `json:"verify,omitempty"`

	// RebootTimeoutSeconds is how long a node may take, after its Job succeeded, to reboot,
	// report Ready again and (with verify) be verified, before it counts as failed.
	// +optional
	// +kubebuilder:default=900
	// +kubebuilder:validation:Minimum=10
	RebootTimeoutSeconds *int32 `json:"rebootTimeoutSeconds,omitempty"`
}

// Preflight is a check run on each node, with the host's root filesystem mounted read-only at
// /host (also in HOST_DIR). If the check writes a reason to its termination message
// (/dev/termination-log) the node is skipped with that reason; if it exits 0 without one the
// operation proceeds; if it fails, the node fails.
type Preflight struct {
	// Command runs the check.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MaxLength=65536
	Command []string `json:"command"`

	// Image the check runs in; the NodeOp's image when empty.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image,omitempty"`

	// ActiveDeadlineSeconds bounds how long the check may run before the node fails.
	// +optional
	// +kubebuilder:default=300
	// +kubebuilder:validation:Minimum=1
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
}

// Verification is what a node must report to the API server after its reboot. Values read from
// node labels are set by the node labeler, which also records the boot they were read in
// (annotation kairos.io/labelled-boot-id): only labels of the running boot count.
//
// +kubebuilder:validation:XValidation:rule="has(self.bootState) || self.jobReportedVersion",message="verify must check something: set bootState or jobReportedVersion"
type Verification struct {
	// BootState the node must report in its kairos.io/boot-state label, such as active: a node
	// that came back on the passive (fallback) or recovery system fails.
	// +optional
	// +kubebuilder:validation:Enum=active;passive;recovery
	BootState string `json:"bootState,omitempty"`

	// JobReportedVersion requires the node to report the Kairos version its Job wrote to its
	// termination message as KAIROS_VERSION= and KAIROS_SOFTWARE_VERSION= lines. The node's
	// version is read from its kairos.io/version and kairos.io/software-version labels, or from
	// status.nodeInfo.osImage when the labeler has not labelled the running boot. A Job that
	// reports no version leaves the version unchecked.
	// +optional
	JobReportedVersion bool `json:"jobReportedVersion,omitempty"`
}

// DrainOptions mirror the flags of `kubectl drain`. Evictions go through the Eviction API, so
// PodDisruptionBudgets are honoured.
type DrainOptions struct {
	// Enabled drains each node before the command runs.
	// +optional
	// +kubebuilder:default=false
	Enabled bool `json:"enabled"`

	// Force also deletes pods that no controller manages (they are not recreated elsewhere).
	// +optional
	// +kubebuilder:default=false
	Force bool `json:"force"`

	// GracePeriodSeconds given to each evicted pod; -1 (or unset) uses the pod's own.
	// +optional
	// +kubebuilder:validation:Minimum=-1
	GracePeriodSeconds *int32 `json:"gracePeriodSeconds,omitempty"`

	// IgnoreDaemonSets leaves DaemonSet pods in place instead of refusing to drain.
	// +optional
	// +kubebuilder:default=true
	IgnoreDaemonSets *bool `json:"ignoreDaemonSets,omitempty"`

	// DeleteEmptyDirData evicts pods with emptyDir volumes, losing that data.
	// +optional
	// +kubebuilder:default=false
	DeleteEmptyDirData bool `json:"deleteEmptyDirData"`

	// TimeoutSeconds is how long evictions blocked (for example by a PodDisruptionBudget) are
	// retried before the node fails. 0 or unset waits as long as it takes, like kubectl drain.
	// +optional
	// +kubebuilder:validation:Minimum=0
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
}

// NodeOpPhase is the overall state of a NodeOp.
// +kubebuilder:validation:Enum=Pending;Running;Completed;Failed
type NodeOpPhase string

const (
	// NodeOpPending means no node has been started yet.
	NodeOpPending NodeOpPhase = "Pending"
	// NodeOpRunning means some target nodes are not finished.
	NodeOpRunning NodeOpPhase = "Running"
	// NodeOpCompleted means every target node finished successfully or was skipped.
	NodeOpCompleted NodeOpPhase = "Completed"
	// NodeOpFailed means every node that will run has finished and at least one failed.
	NodeOpFailed NodeOpPhase = "Failed"
)

// NodePhase is the state of the operation on one node.
// +kubebuilder:validation:Enum=Pending;Preflight;Running;Completed;Failed
type NodePhase string

const (
	// NodePending means work on the node has not started.
	NodePending NodePhase = "Pending"
	// NodePreflight means the preflight check runs on the node.
	NodePreflight NodePhase = "Preflight"
	// NodeRunning means the node is being cordoned, drained, runs its Job or reboots.
	NodeRunning NodePhase = "Running"
	// NodeCompleted means the node finished successfully (or was skipped by preflight).
	NodeCompleted NodePhase = "Completed"
	// NodeFailed means the operation failed on the node.
	NodeFailed NodePhase = "Failed"
)

// RebootStatus tells where a node is in its reboot after success.
// +kubebuilder:validation:Enum=not-requested;pending;completed;cancelled
type RebootStatus string

const (
	// RebootNotRequested means the NodeOp does not reboot nodes.
	RebootNotRequested RebootStatus = "not-requested"
	// RebootPending means the node will reboot (or is rebooting) once its Job succeeded.
	RebootPending RebootStatus = "pending"
	// RebootCompleted means the node came back with a new boot ID and is Ready.
	RebootCompleted RebootStatus = "completed"
	// RebootCancelled means the Job failed, so the node was not rebooted.
	RebootCancelled RebootStatus = "cancelled"
)

// NodeStatus is the state of the operation on one node.
type NodeStatus struct {
	// Phase of the operation on this node.
	Phase NodePhase `json:"phase"`

	// JobName is the Job that runs the command on this node.
	// +optional
	JobName string `json:"jobName,omitempty"`

	// Message says what happens or happened on this node, in words.
	// +optional
	Message string `json:"message,omitempty"`

	// RebootStatus tells where the node is in its reboot.
	// +optional
	RebootStatus RebootStatus `json:"rebootStatus,omitempty"`

	// StartedAt is when work on this node started.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`

	// FinishedAt is when the node reached Completed or Failed.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`

	// LastUpdated is when this entry last changed.
	// +optional
	LastUpdated metav1.Time `json:"lastUpdated,omitempty"`
}

// NodeCounts counts the target nodes by state, for `kubectl get` and the plugin.
type NodeCounts struct {
	// TotalNodes is the number of target nodes.
	// +optional
	TotalNodes int32 `json:"totalNodes,omitempty"`
	// CompletedNodes finished successfully or were skipped.
	// +optional
	CompletedNodes int32 `json:"completedNodes,omitempty"`
	// FailedNodes failed.
	// +optional
	FailedNodes int32 `json:"failedNodes,omitempty"`
	// RunningNodes are in flight (preflight, cordon, drain, Job or reboot).
	// +optional
	RunningNodes int32 `json:"runningNodes,omitempty"`
	// Progress is finished/total nodes, for `kubectl get`.
	// +optional
	Progress string `json:"progress,omitempty"`
}

// NodeOpStatus is what the operator observed and did.
type NodeOpStatus struct {
	// Phase of the whole operation.
	// +optional
	Phase NodeOpPhase `json:"phase,omitempty"`

	// Message summarises the operation in words.
	// +optional
	Message string `json:"message,omitempty"`

	// NodeStatuses has an entry for every target node, keyed by node name.
	// +optional
	NodeStatuses map[string]NodeStatus `json:"nodeStatuses,omitempty"`

	NodeCounts `json:",inline"`

	// ObservedGeneration is the generation of the spec this status was computed from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Progressing, Complete and Failed.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// LastUpdated is when the status last changed.
	// +optional
	LastUpdated metav1.Time `json:"lastUpdated,omitempty"`
}

// NodeOp runs a privileged command on selected nodes, a few at a time, with optional cordon,
// drain and a verified reboot.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=nop,categories=kairos
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Progress",type=string,JSONPath=`.status.progress`,description="finished/total nodes"
// +kubebuilder:printcolumn:name="Running",type=integer,JSONPath=`.status.runningNodes`
// +kubebuilder:printcolumn:name="Failed",type=integer,JSONPath=`.status.failedNodes`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type NodeOp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NodeOpSpec   `json:"spec"`
	Status NodeOpStatus `json:"status,omitempty"`
}

// NodeOpList is a list of NodeOps.
//
// +kubebuilder:object:root=true
type NodeOpList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodeOp `json:"items"`
}

func init() {
	SchemeBuilder.Register(&NodeOp{}, &NodeOpList{})
}
