package fetch_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/fetch"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/fetch/fetchtest"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(m, &env))
}

// runningPod refuses to exec into a pod that is not Running, as the API server would.
func runningPod(ctx context.Context, namespace, pod string) error {
	var p corev1.Pod
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: pod}, &p); err != nil {
		return err
	}
	if p.Status.Phase != corev1.PodRunning {
		return fmt.Errorf("exec into pod %s in phase %s", pod, p.Status.Phase)
	}
	return nil
}

func artifactVolume(t *testing.T, ns, artifact string) {
	t.Helper()
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: artifact + "-artifacts", Namespace: ns, Labels: map[string]string{kairosv1alpha2.LabelArtifact: artifact}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if err := env.Client.Create(context.Background(), pvc); err != nil {
		t.Fatal(err)
	}
}

func TestFetchCopiesTheArtifactsAndRemovesItsPod(t *testing.T) {
	ns := env.CreateNamespace(t, testenv.UniqueName("fetch-ok"))
	artifactVolume(t, ns, "my-iso")
	env.RunPods(t, ns)
	src := t.TempDir()
	iso := bytes.Repeat([]byte("kairos"), 300000)
	if err := os.WriteFile(filepath.Join(src, "kairos.iso"), iso, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(src, "netboot"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "netboot", "kernel"), []byte("vmlinuz"), 0o644); err != nil {
		t.Fatal(err)
	}
	streamer := &fetchtest.LocalStreamer{Dir: src, Check: runningPod}
	var progress bytes.Buffer
	f := &fetch.Fetcher{Client: env.Client, Streamer: streamer, Image: "busybox:latest", Progress: &progress}
	dest := filepath.Join(t.TempDir(), "dist")
	files, err := f.Fetch(context.Background(), ns, "my-iso", dest)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	if want := []string{"kairos.iso", filepath.Join("netboot", "kernel")}; !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	if got, err := os.ReadFile(filepath.Join(dest, "kairos.iso")); err != nil || !bytes.Equal(got, iso) {
		t.Errorf("copied ISO differs (%v)", err)
	}
	if !strings.Contains(progress.String(), "100%") || strings.Count(progress.String(), "\n") < 2 {
		t.Errorf("progress:\n%s", progress.String())
	}
	if want := []string{"du -sk /artifacts", "tar -cf - -C /artifacts ."}; !slices.Equal(streamer.Calls(), want) {
		t.Errorf("commands %q, want %q", streamer.Calls(), want)
	}
	var pods corev1.PodList
	if err := env.Client.List(context.Background(), &pods, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp.IsZero() {
			t.Errorf("fetch pod %s was left behind", p.Name)
		}
		if v := p.Spec.Volumes[0].PersistentVolumeClaim; v == nil || v.ClaimName != "my-iso-artifacts" || !v.ReadOnly {
			t.Errorf("fetch pod volume %+v, want the artifacts claim read-only", p.Spec.Volumes[0])
		}
	}
}

func TestFetchWithoutAVolumeSaysSo(t *testing.T) {
	ns := env.CreateNamespace(t, testenv.UniqueName("fetch-none"))
	f := &fetch.Fetcher{Client: env.Client, Streamer: &fetchtest.LocalStreamer{Check: runningPod}, Image: "busybox"}
	_, err := f.Fetch(context.Background(), ns, "never-built", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no PersistentVolumeClaim labelled build.kairos.io/artifact=never-built") {
		t.Fatalf("got %v", err)
	}
}

func TestUntarRefusesEntriesOutsideTheDirectory(t *testing.T) {
	for _, tc := range []struct {
		name string
		hdr  tar.Header
	}{
		{"parent", tar.Header{Name: "../evil", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}},
		{"nested parent", tar.Header{Name: "a/../../evil", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}},
		{"absolute", tar.Header{Name: "/etc/evil", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644}},
		{"symlink", tar.Header{Name: "link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			if err := tw.WriteHeader(&tc.hdr); err != nil {
				t.Fatal(err)
			}
			if tc.hdr.Size > 0 {
				_, _ = tw.Write([]byte("x"))
			}
			_ = tw.Close()
			root := t.TempDir()
			dir := filepath.Join(root, "out")
			if _, err := fetch.Untar(&buf, dir); err == nil || !strings.Contains(err.Error(), "refusing") {
				t.Fatalf("got %v, want a refusal", err)
			}
			if _, err := os.Stat(filepath.Join(root, "evil")); err == nil {
				t.Error("a file was written outside the target directory")
			}
		})
	}
}
