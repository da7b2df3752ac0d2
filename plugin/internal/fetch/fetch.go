// Package fetch copies a finished OSArtifact's files out of the cluster, the way `kubectl cp`
// does: a short-lived pod mounts the artifacts volume read-only and a tar stream comes back over
// exec, unpacked into a local directory with a progress bar.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
)

const (
	container  = "fetch"
	mountPath  = "/artifacts"
	waitForPod = 5 * time.Minute
)

// Streamer runs a command in a running pod's container and streams its standard output.
type Streamer interface {
	Stream(ctx context.Context, namespace, pod, container string, command []string, stdout io.Writer) error
}

// Fetcher copies artifacts out of the cluster.
type Fetcher struct {
	Client   client.Client
	Streamer Streamer
	// Image runs the fetch pod; it needs sh, du and tar (busybox has them).
	Image string
	// Progress receives the progress bar; Live redraws it in place (a terminal).
	Progress io.Writer
	Live     bool
}

// Fetch copies the artifacts of the OSArtifact name into dir and returns the files written.
func (f *Fetcher) Fetch(ctx context.Context, namespace, name, dir string) ([]string, error) {
	claim, err := f.volume(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	pod := fetchPod(namespace, name, claim, f.Image)
	if err := f.Client.Create(ctx, pod); err != nil {
		return nil, fmt.Errorf("create pod to fetch the artifacts of %s: %w", name, err)
	}
	defer func() {
		// A fresh context: the pod goes even when the user interrupted the copy.
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = f.Client.Delete(cleanup, pod, client.GracePeriodSeconds(0))
	}()
	if err := f.waitRunning(ctx, pod); err != nil {
		return nil, err
	}

	total, err := f.size(ctx, pod)
	if err != nil {
		return nil, err
	}
	bar := newBar(f.Progress, total, f.Live)
	r, w := io.Pipe()
	streamed := make(chan error, 1)
	go func() {
		err := f.Streamer.Stream(ctx, namespace, pod.Name, container, []string{"tar", "-cf", "-", "-C", mountPath, "."}, w)
		w.CloseWithError(err)
		streamed <- err
	}()
	counted := io.TeeReader(r, bar)
	files, unpackErr := Untar(counted, dir)
	if unpackErr == nil {
		_, _ = io.Copy(io.Discard, counted) // tar pads its end past the end-of-archive marker
	}
	_ = r.CloseWithError(errors.New("unpacking stopped")) // ends the stream if unpacking failed
	streamErr := <-streamed
	if unpackErr != nil {
		return files, fmt.Errorf("unpack artifacts into %s: %w", dir, unpackErr)
	}
	if streamErr != nil {
		return files, fmt.Errorf("stream artifacts from pod %s: %w", pod.Name, streamErr)
	}
	bar.done()
	return files, nil
}

// volume finds the PersistentVolumeClaim the build wrote to.
func (f *Fetcher) volume(ctx context.Context, namespace, name string) (string, error) {
	var claims corev1.PersistentVolumeClaimList
	if err := f.Client.List(ctx, &claims, client.InNamespace(namespace), client.MatchingLabels{kairosv1alpha2.LabelArtifact: name}); err != nil {
		return "", fmt.Errorf("find the artifacts volume of %s: %w", name, err)
	}
	switch len(claims.Items) {
	case 0:
		return "", fmt.Errorf("no PersistentVolumeClaim labelled %s=%s in %s: the build left no artifacts volume to copy from", kairosv1alpha2.LabelArtifact, name, namespace)
	case 1:
		return claims.Items[0].Name, nil
	}
	return "", fmt.Errorf("%d PersistentVolumeClaims are labelled %s=%s; copy from the right one by hand", len(claims.Items), kairosv1alpha2.LabelArtifact, name)
}

func fetchPod(namespace, artifact, claim, image string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s-fetch-%s", truncate(artifact, 40), utilrand.String(5)),
			Namespace: namespace,
			Labels:    map[string]string{"app.kubernetes.io/managed-by": "kubectl-kairos", "app.kubernetes.io/component": "artifact-fetch"},
		},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			AutomountServiceAccountToken:  ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			// Bounded: a fetch pod left behind by a killed plugin ends by itself.
			ActiveDeadlineSeconds: ptr.To[int64](6 * 3600),
			Containers: []corev1.Container{{
				Name:         container,
				Image:        image,
				Command:      []string{"sleep", "21600"},
				VolumeMounts: []corev1.VolumeMount{{Name: "artifacts", MountPath: mountPath, ReadOnly: true}},
			}},
			Volumes: []corev1.Volume{{
				Name: "artifacts",
				VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{
					ClaimName: claim, ReadOnly: true,
				}},
			}},
		},
	}
}

// waitRunning waits for the fetch pod to run, and says why when it cannot.
func (f *Fetcher) waitRunning(ctx context.Context, pod *corev1.Pod) error {
	ctx, cancel := context.WithTimeout(ctx, waitForPod)
	defer cancel()
	for {
		current := &corev1.Pod{}
		if err := f.Client.Get(ctx, client.ObjectKeyFromObject(pod), current); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("wait for pod %s: %w", pod.Name, err)
		}
		switch current.Status.Phase {
		case corev1.PodRunning:
			return nil
		case corev1.PodFailed, corev1.PodSucceeded:
			return fmt.Errorf("pod %s ended (%s) before the artifacts were copied: %s", pod.Name, current.Status.Phase, current.Status.Message)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pod %s did not start within %s (%s): see kubectl describe pod %s -n %s",
				pod.Name, waitForPod, podProblem(current), pod.Name, pod.Namespace)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// podProblem is the reason a pod is not running, for the error message.
func podProblem(pod *corev1.Pod) string {
	for _, cs := range pod.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return w.Reason + ": " + w.Message
		}
	}
	for _, c := range pod.Status.Conditions {
		if c.Status != corev1.ConditionTrue && c.Message != "" {
			return c.Message
		}
	}
	return "phase " + string(pod.Status.Phase)
}

// size is the volume's content in bytes, for the progress bar.
func (f *Fetcher) size(ctx context.Context, pod *corev1.Pod) (int64, error) {
	var out strings.Builder
	if err := f.Streamer.Stream(ctx, pod.Namespace, pod.Name, container, []string{"du", "-sk", mountPath}, &out); err != nil {
		return 0, fmt.Errorf("measure the artifacts in pod %s: %w", pod.Name, err)
	}
	fields := strings.Fields(out.String())
	if len(fields) == 0 {
		return 0, fmt.Errorf("measure the artifacts in pod %s: du printed nothing", pod.Name)
	}
	kib, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("measure the artifacts in pod %s: du printed %q", pod.Name, out.String())
	}
	return kib * 1024, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimRight(s[:n], "-.")
}
