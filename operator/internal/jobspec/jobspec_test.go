package jobspec

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

func testOp() *kairosv1alpha1.NodeOp {
	op := &kairosv1alpha1.NodeOp{}
	op.Name, op.Namespace, op.UID = "upgrade-to-v3.4.2", "ops", types.UID("11111111-2222")
	op.Spec.Command = []string{"sh", "-c", "echo hi"}
	op.Spec.HostMountPath = "/rootfs"
	op.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
	return op
}

func TestNamesAreDeterministicValidAndDistinct(t *testing.T) {
	op := testOp()
	fqdn := "worker-0042.rack-17.datacenter-frankfurt.edge.example-corporation.internal"
	for _, node := range []string{"n1", fqdn, "UPPER_case.node"} {
		for _, name := range []string{JobName(op, node), RebootPodName(op, node), PreflightPodName(op, node)} {
			if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
				t.Errorf("%q is not a DNS label: %v", name, errs)
			}
		}
		// Pods of a Job are named <job>-<5 chars>; they must still be DNS labels.
		if l := len(JobName(op, node)) + 6; l > validation.DNS1123LabelMaxLength {
			t.Errorf("pods of Job %q would have %d characters", JobName(op, node), l)
		}
		if JobName(op, node) != JobName(testOp(), node) {
			t.Errorf("JobName(%q) is not deterministic", node)
		}
	}
	other := testOp()
	other.UID = "33333333-4444"
	if JobName(op, "n1") == JobName(other, "n1") {
		t.Error("a re-created NodeOp (new UID) would adopt its predecessor's Job")
	}
	if JobName(op, fqdn) == JobName(op, fqdn+"x") {
		t.Error("two long node names share a Job name")
	}
}

func TestJobWithoutReboot(t *testing.T) {
	op := testOp()
	job := Job(op, "node-a", "boot-1", DefaultSettings())

	if job.Name != JobName(op, "node-a") || job.Namespace != "ops" {
		t.Errorf("job is %s/%s", job.Namespace, job.Name)
	}
	if ref := job.OwnerReferences; len(ref) != 1 || ref[0].Kind != "NodeOp" || !ptr.Deref(ref[0].Controller, false) {
		t.Errorf("owner references = %+v", ref)
	}
	if got := *job.Spec.BackoffLimit; got != kairosv1alpha1.DefaultBackoffLimit {
		t.Errorf("backoffLimit = %d", got)
	}
	if job.Annotations[AnnotationBootID] != "boot-1" {
		t.Errorf("boot ID annotation = %q", job.Annotations[AnnotationBootID])
	}
	for _, labels := range []map[string]string{job.Labels, job.Spec.Template.Labels} {
		if labels[kairosv1alpha1.LabelNodeOp] != op.Name || labels[kairosv1alpha1.LabelNode] != "node-a" {
			t.Errorf("labels = %v", labels)
		}
	}
	pod := job.Spec.Template.Spec
	if pod.NodeName != "node-a" || pod.RestartPolicy != corev1.RestartPolicyNever || len(pod.InitContainers) != 0 {
		t.Errorf("pod spec: nodeName %q, restart %q, %d init containers", pod.NodeName, pod.RestartPolicy, len(pod.InitContainers))
	}
	if ptr.Deref(pod.AutomountServiceAccountToken, true) {
		t.Error("the Job's pod gets an API token it does not need")
	}
	if !slices.Equal(pod.ImagePullSecrets, op.Spec.ImagePullSecrets) {
		t.Errorf("imagePullSecrets = %v", pod.ImagePullSecrets)
	}
	c := pod.Containers[0]
	if c.Image != "busybox:latest" || !slices.Equal(c.Command, op.Spec.Command) {
		t.Errorf("container runs %v in %q", c.Command, c.Image)
	}
	if !ptr.Deref(c.SecurityContext.Privileged, false) {
		t.Error("the command is not privileged")
	}
	if c.VolumeMounts[0].MountPath != "/rootfs" || pod.Volumes[0].HostPath.Path != "/" {
		t.Errorf("host root mounted at %q from %q", c.VolumeMounts[0].MountPath, pod.Volumes[0].HostPath.Path)
	}
	if !slices.Contains(c.Env, corev1.EnvVar{Name: "HOST_DIR", Value: "/rootfs"}) {
		t.Errorf("env = %v, want HOST_DIR=/rootfs", c.Env)
	}
}

func TestJobWithRebootRunsCommandFirstThenSentinel(t *testing.T) {
	op := testOp()
	op.Spec.RebootOnSuccess = true
	op.Spec.Image = "quay.io/kairos/tools:v1"
	op.Spec.BackoffLimit = ptr.To[int32](2)
	job := Job(op, "node-a", "boot-1", DefaultSettings())
	pod := job.Spec.Template.Spec
	if len(pod.InitContainers) != 1 || pod.InitContainers[0].Image != "quay.io/kairos/tools:v1" {
		t.Fatalf("init containers = %+v, want the user's command", pod.InitContainers)
	}
	if len(pod.Containers) != 1 || !strings.Contains(strings.Join(pod.Containers[0].Command, " "), "usr/local/.kairos") {
		t.Fatalf("containers = %+v, want the sentinel writer", pod.Containers)
	}
	if !slices.Contains(pod.Containers[0].Env, corev1.EnvVar{Name: "JOB_NAME", Value: job.Name}) {
		t.Errorf("sentinel container does not know its Job: %v", pod.Containers[0].Env)
	}
	if *job.Spec.BackoffLimit != 2 {
		t.Errorf("backoffLimit = %d, want 2", *job.Spec.BackoffLimit)
	}
}

func TestRebootPod(t *testing.T) {
	op := testOp()
	s := DefaultSettings()
	s.RebootCommand = "echo pretend"
	pod := RebootPod(op, "node-a", s)
	if pod.Labels[kairosv1alpha1.LabelReboot] != "true" || pod.Labels[kairosv1alpha1.LabelNodeOp] != op.Name {
		t.Errorf("labels = %v", pod.Labels)
	}
	if !pod.Spec.HostPID || ptr.Deref(pod.Spec.AutomountServiceAccountToken, true) {
		t.Errorf("hostPID %v, token %v: want hostPID and no API token", pod.Spec.HostPID, pod.Spec.AutomountServiceAccountToken)
	}
	if pod.Spec.RestartPolicy != corev1.RestartPolicyOnFailure || pod.Spec.NodeName != "node-a" {
		t.Errorf("restart %q on %q", pod.Spec.RestartPolicy, pod.Spec.NodeName)
	}
	env := pod.Spec.Containers[0].Env
	for _, want := range []corev1.EnvVar{
		{Name: "JOB_NAME", Value: JobName(op, "node-a")},
		{Name: "REBOOT_COMMAND", Value: "echo pretend"},
		{Name: "SENTINEL_DIR", Value: "/host/usr/local/.kairos"},
	} {
		if !slices.Contains(env, want) {
			t.Errorf("env %v lacks %v", env, want)
		}
	}
}

func TestPreflightPod(t *testing.T) {
	op := testOp()
	op.Spec.Preflight = &kairosv1alpha1.Preflight{Command: []string{"check"}, ActiveDeadlineSeconds: ptr.To[int64](60)}
	pod := PreflightPod(op, "node-a", DefaultSettings())
	if pod.Labels[kairosv1alpha1.LabelPreflight] != "true" {
		t.Errorf("labels = %v", pod.Labels)
	}
	if ptr.Deref(pod.Spec.ActiveDeadlineSeconds, 0) != 60 || pod.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("deadline %v, restart %q", pod.Spec.ActiveDeadlineSeconds, pod.Spec.RestartPolicy)
	}
	c := pod.Spec.Containers[0]
	if !c.VolumeMounts[0].ReadOnly || c.TerminationMessagePolicy != corev1.TerminationMessageReadFile {
		t.Errorf("mount read-only %v, termination message %q", c.VolumeMounts[0].ReadOnly, c.TerminationMessagePolicy)
	}
	if c.SecurityContext != nil && ptr.Deref(c.SecurityContext.Privileged, false) {
		t.Error("preflight needs no privileges")
	}
}
