package admission

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

// The reference README has 18 complete YAML examples (spec fragments completed with metadata).
const minSamples = 18

func TestSamplesAreAccepted(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "config", "samples", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < minSamples {
		t.Fatalf("found %d samples in config/samples, want at least %d", len(files), minSamples)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			ns := newNamespace(t)
			for _, obj := range decodeDocs(t, string(data)) {
				if err := create(ns, obj); err != nil {
					t.Fatalf("%s %s refused: %v", obj.GetKind(), obj.GetName(), err)
				}
			}
		})
	}
}

// TestSampleDefaults reads samples back and checks the defaults the README documents.
func TestSampleDefaults(t *testing.T) {
	ctx := context.Background()
	load := func(t *testing.T, file string, into client.Object) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "config", "samples", file))
		if err != nil {
			t.Fatal(err)
		}
		ns := newNamespace(t)
		obj := decodeDocs(t, string(data))[0]
		if err := create(ns, obj); err != nil {
			t.Fatal(err)
		}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), into); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("NodeOp with a private image", func(t *testing.T) {
		var op kairosv1alpha1.NodeOp
		load(t, "nodeop_private_registry.yaml", &op)
		expectEqual(t, "hostMountPath", op.Spec.HostMountPath, "/host")
		expectEqual(t, "backoffLimit", ptr.Deref(op.Spec.BackoffLimit, -1), int32(6))
		expectEqual(t, "concurrency", op.Spec.Concurrency, int32(1))
		expectEqual(t, "paused", op.Spec.Paused, false)
		expectEqual(t, "uncordonOnFailure", op.Spec.UncordonOnFailure, false)
		expectEqual(t, "drainOptions.ignoreDaemonSets", ptr.Deref(op.Spec.DrainOptions.IgnoreDaemonSets, false), true)
		expectEqual(t, "drainOptions.timeoutSeconds", ptr.Deref(op.Spec.DrainOptions.TimeoutSeconds, 0), int32(300))
	})
	t.Run("NodeOp example keeps its values", func(t *testing.T) {
		var op kairosv1alpha1.NodeOp
		load(t, "nodeop_example.yaml", &op)
		expectEqual(t, "backoffLimit", ptr.Deref(op.Spec.BackoffLimit, -1), int32(3))
		expectEqual(t, "image", op.Spec.Image, "busybox:latest")
		expectEqual(t, "matchExpressions", len(op.Spec.NodeSelector.MatchExpressions), 1)
		expectEqual(t, "gracePeriodSeconds", ptr.Deref(op.Spec.DrainOptions.GracePeriodSeconds, 0), int32(30))
	})
	t.Run("canary NodeOpUpgrade", func(t *testing.T) {
		var up kairosv1alpha1.NodeOpUpgrade
		load(t, "nodeopupgrade_canary.yaml", &up)
		expectEqual(t, "upgradeActive", ptr.Deref(up.Spec.UpgradeActive, false), true)
		expectEqual(t, "upgradeRecovery", ptr.Deref(up.Spec.UpgradeRecovery, true), false)
		expectEqual(t, "force", up.Spec.Force, false)
		expectEqual(t, "concurrency", up.Spec.Concurrency, int32(1))
		expectEqual(t, "stopOnFailure", up.Spec.StopOnFailure, true)
	})
	t.Run("advanced OSArtifact", func(t *testing.T) {
		var art kairosv1alpha2.OSArtifact
		load(t, "osartifact_advanced.yaml", &art)
		expectEqual(t, "iso", art.Spec.ISO, true)
		expectEqual(t, "gceImage", art.Spec.GCEImage, false)
		expectEqual(t, "bundles", len(art.Spec.Bundles), 2)
		expectEqual(t, "cloudConfigRef.key", art.Spec.CloudConfigRef.Key, "cloud-config.yaml")
		expectEqual(t, "volume storage", art.Spec.Volume.Resources.Requests.Storage().String(), "50Gi")
	})
	t.Run("exporter Job template survives", func(t *testing.T) {
		var art kairosv1alpha2.OSArtifact
		load(t, "osartifact_iso_exporter.yaml", &art)
		expectEqual(t, "exporters", len(art.Spec.Exporters), 1)
		expectEqual(t, "exporter container", art.Spec.Exporters[0].Template.Spec.Containers[0].Name, "copy")
		expectEqual(t, "exporter volumes", len(art.Spec.Exporters[0].Template.Spec.Volumes), 2)
	})
}

// TestOmittedFieldDefaults creates minimal objects and checks every documented default.
func TestOmittedFieldDefaults(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	get := func(t *testing.T, data string, into client.Object) {
		t.Helper()
		obj := decodeDocs(t, data)[0]
		if err := create(ns, obj); err != nil {
			t.Fatal(err)
		}
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(obj), into); err != nil {
			t.Fatal(err)
		}
	}

	var op kairosv1alpha1.NodeOp
	get(t, `
apiVersion: operator.kairos.io/v1alpha1
kind: NodeOp
metadata: {name: minimal}
spec:
  command: ["true"]
  cordon: true
  drainOptions: {enabled: true}
`, &op)
	expectEqual(t, "hostMountPath", op.Spec.HostMountPath, kairosv1alpha1.DefaultHostMountPath)
	expectEqual(t, "backoffLimit", ptr.Deref(op.Spec.BackoffLimit, -1), kairosv1alpha1.DefaultBackoffLimit)
	expectEqual(t, "concurrency", op.Spec.Concurrency, int32(0))
	expectEqual(t, "image", op.Spec.Image, "")
	expectEqual(t, "rebootOnSuccess", op.Spec.RebootOnSuccess, false)
	expectEqual(t, "stopOnFailure", op.Spec.StopOnFailure, false)
	expectEqual(t, "drainOptions.ignoreDaemonSets", ptr.Deref(op.Spec.DrainOptions.IgnoreDaemonSets, false), true)
	expectEqual(t, "drainOptions.force", op.Spec.DrainOptions.Force, false)
	expectEqual(t, "drainOptions.deleteEmptyDirData", op.Spec.DrainOptions.DeleteEmptyDirData, false)
	expectEqual(t, "drainOptions.timeoutSeconds set", op.Spec.DrainOptions.TimeoutSeconds == nil, true)

	var up kairosv1alpha1.NodeOpUpgrade
	get(t, `
apiVersion: operator.kairos.io/v1alpha1
kind: NodeOpUpgrade
metadata: {name: minimal}
spec:
  image: quay.io/kairos/opensuse:leap-15.6-standard-amd64-generic-v3.4.2-k3sv1.30.11-k3s1
`, &up)
	expectEqual(t, "upgradeActive", ptr.Deref(up.Spec.UpgradeActive, false), true)
	expectEqual(t, "upgradeRecovery", ptr.Deref(up.Spec.UpgradeRecovery, true), false)
	expectEqual(t, "concurrency", up.Spec.Concurrency, int32(0))
	expectEqual(t, "force", up.Spec.Force, false)

	var art kairosv1alpha2.OSArtifact
	get(t, `
apiVersion: build.kairos.io/v1alpha2
kind: OSArtifact
metadata: {name: minimal}
spec:
  baseImageDockerfile: {name: my-dockerfile}
  iso: true
`, &art)
	expectEqual(t, "baseImageDockerfile.key", art.Spec.BaseImageDockerfile.Key, "Dockerfile")
	expectEqual(t, "cloudImage", art.Spec.CloudImage, false)
}

func expectEqual[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}
