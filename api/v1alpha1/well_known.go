package v1alpha1

// Labels, annotations and paths that users' scripts and dashboards rely on. The operator and the
// plugin both read them from here so that the two programs never disagree.
const (
	// LabelNodeOp is set on every Job and pod a NodeOp creates; its value is the NodeOp's name.
	LabelNodeOp = "kairos.io/nodeop"
	// LabelNode is set on every Job and pod a NodeOp creates; its value is the target node
	// (made label-safe, see NodeLabelValue).
	LabelNode = "kairos.io/node"
	// LabelReboot marks the pod that reboots a node after its Job succeeded.
	LabelReboot = "kairos.io/reboot"
	// LabelPreflight marks the pod that decides whether a node needs the operation at all.
	LabelPreflight = "kairos.io/preflight"
	// LabelNodeOpUpgrade is set on the NodeOp generated for a NodeOpUpgrade; its value is the
	// NodeOpUpgrade's name.
	LabelNodeOpUpgrade = "kairos.io/nodeopupgrade"

	// LabelManaged marks nodes that run Kairos; the node labeler sets it to "true".
	LabelManaged = "kairos.io/managed"
	// LabelBootState is the partition a Kairos node booted from: active, passive, recovery,
	// livecd or unknown.
	LabelBootState = "kairos.io/boot-state"

	// AnnotationLabelledBootID records on a Kairos node the boot ID its labels were read in. The
	// labels describe the running system only when it equals status.nodeInfo.bootID; right after
	// a reboot they still describe the previous boot until the node labeler has run again.
	AnnotationLabelledBootID = "kairos.io/labelled-boot-id"

	// AnnotationCordonedBy records on a Node which NodeOp cordoned it, as <ns>/<name>@<uid>.
	// Only cordons carrying a NodeOp's own value are ever undone by that NodeOp.
	AnnotationCordonedBy = "operator.kairos.io/cordoned-by"

	// FinalizerNodeOp lets a deleted NodeOp release the cordons it still owns.
	FinalizerNodeOp = "operator.kairos.io/nodeop-cleanup"

	// RebootSentinelDir is the directory on the host where a Job announces a successful run
	// (a file named <job-name>-<unix time>); the reboot pod acts on it.
	RebootSentinelDir = "/usr/local/.kairos"

	// DefaultHostMountPath is where the host's root filesystem is mounted in a NodeOp's Job.
	DefaultHostMountPath = "/host"
	// DefaultBackoffLimit is the number of retries of a node's Job before it counts as failed.
	DefaultBackoffLimit int32 = 6
)

// Condition types reported by NodeOp and NodeOpUpgrade.
const (
	// ConditionProgressing is True while nodes are being worked on, False when paused, stopped
	// or finished.
	ConditionProgressing = "Progressing"
	// ConditionComplete is True once every target node finished successfully (or was skipped).
	ConditionComplete = "Complete"
	// ConditionFailed is True once the operation can no longer complete successfully.
	ConditionFailed = "Failed"
)
