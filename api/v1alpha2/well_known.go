package v1alpha2

// Labels and condition types that users and the plugin rely on.
const (
	// LabelArtifact is set on everything an OSArtifact creates (builder pod, PVC, exporter
	// Jobs); its value is the OSArtifact's name.
	LabelArtifact = "build.kairos.io/artifact"

	// ConditionReady is True once the artifacts are built and exported.
	ConditionReady = "Ready"
	// ConditionFailed is True once the build or an export failed.
	ConditionFailed = "Failed"
)
