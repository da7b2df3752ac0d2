package v1alpha2

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OSArtifactSpec says what to build from and which artifacts to produce.
//
// +kubebuilder:validation:XValidation:rule="[has(self.imageName), has(self.baseImageName), has(self.baseImageDockerfile)].filter(x, x).size() == 1",message="set exactly one image source: imageName (a Kairos image), baseImageName (a plain Linux image to convert) or baseImageDockerfile (a Dockerfile in a Secret)"
// +kubebuilder:validation:XValidation:rule="self.iso || self.cloudImage || self.azureImage || self.gceImage || self.netboot",message="nothing to build: enable at least one of iso, cloudImage, azureImage, gceImage or netboot"
// +kubebuilder:validation:XValidation:rule="!self.netboot || self.iso",message="netboot artifacts are extracted from the ISO: set iso: true as well",fieldPath=.netboot
// +kubebuilder:validation:XValidation:rule="!has(self.netbootURL) || self.netboot",message="netbootURL is only used with netboot: true",fieldPath=.netbootURL
// +kubebuilder:validation:XValidation:rule="has(self.baseImageDockerfile) || (!has(self.dockerfileTemplateValues) && !has(self.dockerfileTemplateValuesFrom))",message="dockerfileTemplateValues and dockerfileTemplateValuesFrom only apply to baseImageDockerfile",fieldPath=.dockerfileTemplateValues
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="an OSArtifact cannot be changed once created; create a new OSArtifact to build something else"
type OSArtifactSpec struct {
	// ImageName is a ready-made Kairos container image to build the artifacts from.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	ImageName string `json:"imageName,omitempty"`

	// BaseImageName is a plain Linux container image that the build turns into a Kairos image.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	BaseImageName string `json:"baseImageName,omitempty"`

	// BaseImageDockerfile points to a Secret holding a Dockerfile (a Go template) to build the
	// image from.
	// +optional
	BaseImageDockerfile *DockerfileSource `json:"baseImageDockerfile,omitempty"`

	// DockerfileTemplateValues are template values for the Dockerfile. They win over
	// DockerfileTemplateValuesFrom on the same key.
	// +optional
	// +kubebuilder:validation:MaxProperties=256
	DockerfileTemplateValues map[string]string `json:"dockerfileTemplateValues,omitempty"`

	// DockerfileTemplateValuesFrom names a Secret whose entries are template values for the
	// Dockerfile.
	// +optional
	DockerfileTemplateValuesFrom *SecretReference `json:"dockerfileTemplateValuesFrom,omitempty"`

	// ISO builds a bootable installation ISO.
	// +optional
	// +kubebuilder:default=false
	ISO bool `json:"iso"`

	// CloudImage builds a raw disk image.
	// +optional
	// +kubebuilder:default=false
	CloudImage bool `json:"cloudImage"`

	// DiskSize of the raw disk image: a number with an optional unit, e.g. 10G, 16Gi or 20480M
	// (a bare number is megabytes).
	// +optional
	// +kubebuilder:validation:Pattern=`^[1-9][0-9]*([KMGT]i?)?$`
	DiskSize string `json:"diskSize,omitempty"`

	// AzureImage builds an Azure VHD image.
	// +optional
	// +kubebuilder:default=false
	AzureImage bool `json:"azureImage"`

	// GCEImage builds a Google Compute Engine image.
	// +optional
	// +kubebuilder:default=false
	GCEImage bool `json:"gceImage"`

	// Netboot extracts kernel, initrd and squashfs from the ISO for network boot.
	// +optional
	// +kubebuilder:default=false
	Netboot bool `json:"netboot"`

	// NetbootURL is where the netboot artifacts will be served from.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self.startsWith('http://') || self.startsWith('https://')",message="netbootURL must be an http:// or https:// URL"
	NetbootURL string `json:"netbootURL,omitempty"`

	// CloudConfigRef points to a Secret holding a cloud-config baked into the artifacts.
	// +optional
	CloudConfigRef *SecretKeySelector `json:"cloudConfigRef,omitempty"`

	// GRUBConfig is extra GRUB configuration for the ISO.
	// +optional
	GRUBConfig string `json:"grubConfig,omitempty"`

	// OSRelease is written into the image's /etc/os-release.
	// +optional
	OSRelease string `json:"osRelease,omitempty"`

	// KairosRelease is written into the image's /etc/kairos-release.
	// +optional
	KairosRelease string `json:"kairosRelease,omitempty"`

	// Bundles are Kairos bundles (container images) installed into the image.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	Bundles []string `json:"bundles,omitempty"`

	// ImagePullSecrets name Secrets in the same namespace used to pull the source images.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	ImagePullSecrets []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`

	// Exporters are Jobs run once the build succeeded, with the artifacts volume mounted, to
	// copy or upload the artifacts.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Exporters []batchv1.JobSpec `json:"exporters,omitempty"`

	// Volume overrides the PersistentVolumeClaim the artifacts are written to.
	// +optional
	Volume *corev1.PersistentVolumeClaimSpec `json:"volume,omitempty"`
}

// DockerfileSource is a key of a Secret that holds a Dockerfile.
type DockerfileSource struct {
	// Name of the Secret, in the OSArtifact's namespace.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`

	// Key of the Dockerfile in the Secret.
	// +optional
	// +kubebuilder:default=Dockerfile
	// +kubebuilder:validation:MinLength=1
	Key string `json:"key,omitempty"`
}

// SecretKeySelector is a key of a Secret in the OSArtifact's namespace.
type SecretKeySelector struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`

	// Key in the Secret.
	// +kubebuilder:validation:MinLength=1
	Key string `json:"key"`
}

// SecretReference names a Secret in the OSArtifact's namespace.
type SecretReference struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
}

// ArtifactPhase is the state of a build.
// +kubebuilder:validation:Enum=Pending;Building;Exporting;Ready;Error
type ArtifactPhase string

const (
	// ArtifactPending means the build has not started yet.
	ArtifactPending ArtifactPhase = "Pending"
	// ArtifactBuilding means the builder pod runs.
	ArtifactBuilding ArtifactPhase = "Building"
	// ArtifactExporting means the exporter Jobs run.
	ArtifactExporting ArtifactPhase = "Exporting"
	// ArtifactReady means the artifacts are built (and exported).
	ArtifactReady ArtifactPhase = "Ready"
	// ArtifactError means the build or an export failed.
	ArtifactError ArtifactPhase = "Error"
)

// OSArtifactStatus is what the operator observed and did.
type OSArtifactStatus struct {
	// Phase of the build.
	// +optional
	Phase ArtifactPhase `json:"phase,omitempty"`

	// Message says what happens or went wrong, in words.
	// +optional
	Message string `json:"message,omitempty"`

	// Artifacts are the files the build produced, relative to the artifacts volume.
	// +optional
	Artifacts []string `json:"artifacts,omitempty"`

	// ObservedGeneration is the generation of the spec this status was computed from.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions: Ready and Failed.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// OSArtifact builds ISOs, disk images and netboot files from a container image, in the cluster.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=osa,categories=kairos
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.imageName`,priority=1
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.message`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type OSArtifact struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   OSArtifactSpec   `json:"spec"`
	Status OSArtifactStatus `json:"status,omitempty"`
}

// OSArtifactList is a list of OSArtifacts.
//
// +kubebuilder:object:root=true
type OSArtifactList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []OSArtifact `json:"items"`
}

func init() {
	SchemeBuilder.Register(&OSArtifact{}, &OSArtifactList{})
}
