package logs

import (
	"context"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// Source opens the log of one container. It is an interface so that tests can feed known lines
// (no kubelet serves logs in the test control plane).
type Source interface {
	Open(ctx context.Context, namespace, pod, container string, follow bool) (io.ReadCloser, error)
}

// kubeletSource reads logs through the API server, as kubectl logs does.
type kubeletSource struct{ client kubernetes.Interface }

func (s kubeletSource) Open(ctx context.Context, namespace, pod, container string, follow bool) (io.ReadCloser, error) {
	return s.client.CoreV1().Pods(namespace).GetLogs(pod, &corev1.PodLogOptions{Container: container, Follow: follow}).Stream(ctx)
}
