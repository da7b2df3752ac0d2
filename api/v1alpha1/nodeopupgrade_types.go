package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeOpUpgradeSpec describes a Kairos upgrade of selected nodes. The operator turns it into a
// NodeOp that cordons, drains, upgrades and reboots each node.
//
// What is upgraded is fixed at creation; only the pacing (concurrency, stopOnFailure, paused) and
// uncordonOnFailure may change while it runs.
//
// +kubebuilder:validation:XValidation:rule="self.upgradeActive || self.upgradeRecovery",message="nothing to upgrade: set upgradeActive or upgradeRecovery to true",fieldPath=.upgradeActive
// +kubebuilder:validation:XValidation:rule="self.image == oldSelf.image",message="image cannot be changed once the NodeOpUpgrade exists; create a new NodeOpUpgrade for another version",fieldPath=.image
// +kubebuilder:validation:XValidation:rule="has(self.nodeSelector) == has(oldSelf.nodeSelector) && (!has(self.nodeSelector) || self.nodeSelector == oldSelf.nodeSelector)",message="nodeSelector cannot be changed once the NodeOpUpgrade exists; create a new NodeOpUpgrade for other nodes",fieldPath=.nodeSelector
// +kubebuilder:validation:XValidation:rule="self.upgradeActive == oldSelf.upgradeActive",message="upgradeActive cannot be changed once the NodeOpUpgrade exists; create a new NodeOpUpgrade",fieldPath=.upgradeActive
// +kubebuilder:validation:XValidation:rule="self.upgradeRecovery == oldSelf.upgradeRecovery",message="upgradeRecovery cannot be changed once the NodeOpUpgrade exists; create a new NodeOpUpgrade",fieldPath=.upgradeRecovery
// +kubebuilder:validation:XValidation:rule="self.force == oldSelf.force",message="force cannot be changed once the NodeOpUpgrade exists; create a new NodeOpUpgrade",fieldPath=.force
// +kubebuilder:validation:XValidation:rule="self.debug == oldSelf.debug",message="debug cannot be changed once the NodeOpUpgrade exists; create a new NodeOpUpgrade",fieldPath=.debug
// +kubebuilder:validation:XValidation:rule="has(self.excludePaths) == has(oldSelf.excludePaths) && (!has(self.excludePaths) || self.excludePaths == oldSelf.excludePaths)",message="excludePaths cannot be changed once the NodeOpUpgrade exists; create a new NodeOpUpgrade",fieldPath=.excludePaths
type NodeOpUpgradeSpec struct {
	// Image holds the Kairos version to upgrade to; its root filesystem becomes the nodes' new
	// system.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Image string `json:"image"`

	// ImagePullSecrets name Secrets in the same namespace used to pull Image.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`

	// NodeSelector picks the nodes to upgrade. When absent, every node is upgraded.
	// +optional
	NodeSelector *NodeSelector `json:"nodeSelector,omitempty"`

	// Concurrency is the most nodes upgraded at once; 0 means all target nodes at once.
	// +optional
	// +kubebuilder:default=0
	// +kubebuilder:validation:Minimum=0
	Concurrency int32 `json:"concurrency"`

	// StopOnFailure upgrades no further node once a node's upgrade failed (a canary rollout).
	// +optional
	// +kubebuilder:default=false
	StopOnFailure bool `json:"stopOnFailure"`

	// UpgradeActive upgrades the active partition, the system the node boots by default.
	// +optional
	// +kubebuilder:default=true
	UpgradeActive *bool `json:"upgradeActive,omitempty"`

	// UpgradeRecovery upgrades the recovery partition.
	// +optional
	// +kubebuilder:default=false
	UpgradeRecovery *bool `json:"upgradeRecovery,omitempty"`

	// Force upgrades nodes that already run the target version. Without it, a node whose running
	// system is already at the image's version is skipped. Upgrades that include the recovery
	// system skip no node: the running version says nothing about the recovery partition.
	// +optional
	// +kubebuilder:default=false
	Force bool `json:"force"`

	// Debug runs kairos-agent with --debug for verbose upgrade logs.
	// +optional
	// +kubebuilder:default=false
	Debug bool `json:"debug"`

	// ExcludePaths are left out of the new system, in addition to /etc/hostname and /etc/hosts
	// which are always kept.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=1024
	ExcludePaths []string `json:"excludePaths,omitempty"`

	// UncordonOnFailure makes a node schedulable again after its upgrade failed. By default a
	// failed node stays cordoned so that it can be looked at.
	// +optional
	// +kubebuilder:default=false
	UncordonOnFailure bool `json:"uncordonOnFailure"`

	// Paused upgrades no new node while true; nodes in flight finish.
	// +optional
	// +kubebuilder:default=false
	Paused bool `json:"paused"`
}

// NodeOpUpgradeStatus mirrors the progress of the generated NodeOp.
type NodeOpUpgradeStatus struct {
	// Phase of the upgrade: Pending, Running, Completed or Failed.
	// +optional
	Phase NodeOpPhase `json:"phase,omitempty"`

	// NodeOpName is the NodeOp that carries out this upgrade.
	// +optional
	NodeOpName string `json:"nodeOpName,omitempty"`

	// Message summarises the upgrade in words.
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

// NodeOpUpgrade upgrades Kairos on selected nodes, a few at a time, through a generated NodeOp.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=nopu,categories=kairos
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`,priority=1
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Progress",type=string,JSONPath=`.status.progress`,description="finished/total nodes"
// +kubebuilder:printcolumn:name="Running",type=integer,JSONPath=`.status.runningNodes`
// +kubebuilder:printcolumn:name="Failed",type=integer,JSONPath=`.status.failedNodes`
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type NodeOpUpgrade struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NodeOpUpgradeSpec   `json:"spec"`
	Status NodeOpUpgradeStatus `json:"status,omitempty"`
}

// NodeOpUpgradeList is a list of NodeOpUpgrades.
//
// +kubebuilder:object:root=true
type NodeOpUpgradeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []NodeOpUpgrade `json:"items"`
}

func init() {
	SchemeBuilder.Register(&NodeOpUpgrade{}, &NodeOpUpgradeList{})
}
