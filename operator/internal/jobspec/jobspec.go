package jobspec

import (
	_ "embed"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

var (
	//go:embed scripts/sentinel.sh
	sentinelScript string
	//go:embed scripts/reboot-wait.sh
	rebootWaitScript string
)

// AnnotationBootID on a Job records the node's boot ID when the Job was created; the node counts
// as rebooted once it reports another one.
const AnnotationBootID = "operator.kairos.io/boot-id-before"

// CommandContainer runs the user's command in a node's Job. Its termination message, if any,
// is the command's report (see Verification.JobReportedVersion).
const CommandContainer = "nodeop"

const (
	hostVolume = "host-root"
	// helperMount is where the operator's own containers (sentinel, reboot) see the host.
	helperMount = "/host"
)

// Settings are the operator-wide parts of what runs on nodes.
type Settings struct {
	// DefaultImage runs NodeOps that name no image.
	DefaultImage string
	// HelperImage runs the operator's own small scripts (sentinel, reboot); it needs a POSIX
	// shell and, for the default reboot command, nsenter.
	HelperImage string
	// RebootCommand is run by the reboot pod's shell to reboot the host.
	RebootCommand string
}

// DefaultRebootCommand reboots the host from a hostPID pod by entering PID 1's namespaces.
const DefaultRebootCommand = "nsenter -t 1 -m -u -i -n -p -- reboot"

// DefaultSettings are the settings the operator starts with unless flags say otherwise.
func DefaultSettings() Settings {
	return Settings{DefaultImage: "busybox:latest", HelperImage: "busybox:latest", RebootCommand: DefaultRebootCommand}
}

// Labels are the labels of everything op creates for node.
func Labels(op *kairosv1alpha1.NodeOp, node string) map[string]string {
	return map[string]string{
		kairosv1alpha1.LabelNodeOp:     op.Name,
		kairosv1alpha1.LabelNode:       kairosv1alpha1.NodeLabelValue(node),
		"app.kubernetes.io/managed-by": "kairos-operator",
	}
}

// Job builds the Job that runs op's command on node. bootID is the node's boot ID now, recorded
// so that a reboot after success can be verified.
//
// With RebootOnSuccess the user's command runs as an init container and a second container
// leaves the sentinel the reboot pod waits for. The Job thus completes before the node reboots,
// and the kubelet never re-runs the command after the reboot.
func Job(op *kairosv1alpha1.NodeOp, node, bootID string, s Settings) *batchv1.Job {
	name := JobName(op, node)
	image := op.Spec.Image
	if image == "" {
		image = s.DefaultImage
	}
	mountPath := op.Spec.HostMountPath
	if mountPath == "" {
		mountPath = kairosv1alpha1.DefaultHostMountPath
	}
	command := corev1.Container{
		Name:    CommandContainer,
		Image:   image,
		Command: op.Spec.Command,
		Env: []corev1.EnvVar{
			{Name: "HOST_DIR", Value: mountPath},
			{Name: "NODE_NAME", Value: node},
		},
		SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)},
		VolumeMounts:    []corev1.VolumeMount{{Name: hostVolume, MountPath: mountPath}},
	}
	pod := basePodSpec(op, node)
	pod.RestartPolicy = corev1.RestartPolicyNever
	if op.Spec.RebootOnSuccess {
		pod.InitContainers = []corev1.Container{command}
		pod.Containers = []corev1.Container{{
			Name:    "request-reboot",
			Image:   s.HelperImage,
			Command: []string{"sh", "-c", sentinelScript},
			Env: []corev1.EnvVar{
				{Name: "HOST_DIR", Value: helperMount},
				{Name: "JOB_NAME", Value: name},
			},
			VolumeMounts: []corev1.VolumeMount{{Name: hostVolume, MountPath: helperMount}},
		}}
	} else {
		pod.Containers = []corev1.Container{command}
	}

	backoff := kairosv1alpha1.DefaultBackoffLimit
	if op.Spec.BackoffLimit != nil {
		backoff = *op.Spec.BackoffLimit
	}
	labels := Labels(op, node)
	return &batchv1.Job{
		ObjectMeta: objectMeta(op, name, labels, map[string]string{AnnotationBootID: bootID}),
		Spec: batchv1.JobSpec{
			BackoffLimit: &backoff,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       pod,
			},
		},
	}
}

// RebootPod builds the pod that reboots node once its Job left the sentinel. It has no
// service-account token: it needs nothing from the API server.
func RebootPod(op *kairosv1alpha1.NodeOp, node string, s Settings) *corev1.Pod {
	labels := Labels(op, node)
	labels[kairosv1alpha1.LabelReboot] = "true"
	spec := basePodSpec(op, node)
	spec.HostPID = true
	spec.RestartPolicy = corev1.RestartPolicyOnFailure
	// The helper image is the operator's, not the user's: the user's pull secrets do not apply.
	spec.ImagePullSecrets = nil
	spec.Containers = []corev1.Container{{
		Name:    "reboot",
		Image:   s.HelperImage,
		Command: []string{"sh", "-c", rebootWaitScript},
		Env: []corev1.EnvVar{
			{Name: "SENTINEL_DIR", Value: helperMount + kairosv1alpha1.RebootSentinelDir},
			{Name: "JOB_NAME", Value: JobName(op, node)},
			{Name: "REBOOT_COMMAND", Value: s.RebootCommand},
		},
		SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)},
		VolumeMounts:    []corev1.VolumeMount{{Name: hostVolume, MountPath: helperMount}},
	}}
	return &corev1.Pod{ObjectMeta: objectMeta(op, RebootPodName(op, node), labels, nil), Spec: spec}
}

// PreflightPod builds the pod that runs op's preflight check on node, with the host's root
// filesystem read-only. Its termination message, if any, is the reason to skip the node.
func PreflightPod(op *kairosv1alpha1.NodeOp, node string, s Settings) *corev1.Pod {
	pf := op.Spec.Preflight
	image := pf.Image
	if image == "" {
		image = op.Spec.Image
	}
	if image == "" {
		image = s.DefaultImage
	}
	labels := Labels(op, node)
	labels[kairosv1alpha1.LabelPreflight] = "true"
	spec := basePodSpec(op, node)
	spec.RestartPolicy = corev1.RestartPolicyNever
	spec.ActiveDeadlineSeconds = pf.ActiveDeadlineSeconds
	spec.Containers = []corev1.Container{{
		Name:                     "preflight",
		Image:                    image,
		Command:                  pf.Command,
		Env:                      []corev1.EnvVar{{Name: "HOST_DIR", Value: helperMount}, {Name: "NODE_NAME", Value: node}},
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		VolumeMounts:             []corev1.VolumeMount{{Name: hostVolume, MountPath: helperMount, ReadOnly: true}},
	}}
	return &corev1.Pod{ObjectMeta: objectMeta(op, PreflightPodName(op, node), labels, nil), Spec: spec}
}

// basePodSpec is what every pod of op on node shares: pinned to the node (so cordons do not
// keep it away), tolerating every taint, the host's root filesystem as a volume, no API access.
func basePodSpec(op *kairosv1alpha1.NodeOp, node string) corev1.PodSpec {
	return corev1.PodSpec{
		NodeName:                      node,
		Tolerations:                   []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
		AutomountServiceAccountToken:  ptr.To(false),
		EnableServiceLinks:            ptr.To(false),
		ImagePullSecrets:              op.Spec.ImagePullSecrets,
		TerminationGracePeriodSeconds: ptr.To[int64](10),
		Volumes: []corev1.Volume{{
			Name: hostVolume,
			VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: "/", Type: ptr.To(corev1.HostPathDirectory),
			}},
		}},
	}
}

func objectMeta(op *kairosv1alpha1.NodeOp, name string, labels, annotations map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:            name,
		Namespace:       op.Namespace,
		Labels:          labels,
		Annotations:     annotations,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(op, kairosv1alpha1.GroupVersion.WithKind("NodeOp"))},
	}
}
