package testenv

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SucceedJobPod plays the Job controller and the kubelet, which the API tier has not: it creates
// a pod of job and records it as succeeded, every container exited 0. The container named
// reporter leaves report as its termination message.
func SucceedJobPod(ctx context.Context, t testing.TB, c client.Client, job *batchv1.Job, reporter, report string) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: job.Name + "-x1", Namespace: job.Namespace, Labels: map[string]string{},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true)}},
		},
		Spec: job.Spec.Template.Spec,
	}
	for k, v := range job.Spec.Template.Labels {
		pod.Labels[k] = v
	}
	pod.Labels[batchv1.JobNameLabel] = job.Name
	if err := c.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	now := metav1.Now()
	terminated := func(ctr corev1.Container) corev1.ContainerStatus {
		st := &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: now, FinishedAt: now}
		if ctr.Name == reporter {
			st.Message = report
		}
		return corev1.ContainerStatus{Name: ctr.Name, Image: ctr.Image, State: corev1.ContainerState{Terminated: st}}
	}
	pod.Status.Phase = corev1.PodSucceeded
	for _, ctr := range pod.Spec.InitContainers {
		pod.Status.InitContainerStatuses = append(pod.Status.InitContainerStatuses, terminated(ctr))
	}
	for _, ctr := range pod.Spec.Containers {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, terminated(ctr))
	}
	if err := c.Status().Update(ctx, pod); err != nil {
		t.Fatal(err)
	}
	return pod
}

// CreateReadyNode creates node and plays its kubelet reporting it Ready with boot ID boot-1.
func (e *Env) CreateReadyNode(ctx context.Context, t testing.TB, node *corev1.Node) {
	t.Helper()
	if err := e.Client.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	node.Status.NodeInfo.BootID = "boot-1"
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
	if err := e.Client.Status().Update(ctx, node); err != nil {
		t.Fatal(err)
	}
}

// RunPods plays the kubelet for every pod in namespace until the test ends: each pod is
// reported Running as soon as it appears.
func (e *Env) RunPods(t testing.TB, namespace string) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for ctx.Err() == nil {
			var pods corev1.PodList
			_ = e.Client.List(ctx, &pods, client.InNamespace(namespace))
			for i := range pods.Items {
				if p := &pods.Items[i]; p.Status.Phase != corev1.PodRunning {
					p.Status.Phase = corev1.PodRunning
					_ = e.Client.Status().Update(ctx, p)
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
}
