package admission

import (
	"context"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

// buildKustomization renders a kustomization directory the way `kubectl apply -k` does.
func buildKustomization(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var objs []*unstructured.Unstructured
	for _, res := range resMap.Resources() {
		m, err := res.Map()
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
	return objs
}

// TestDefaultKustomizationApplies checks that every object of config/default is accepted by the
// API server (server-side dry run), and that it installs what the operator needs.
func TestDefaultKustomizationApplies(t *testing.T) {
	ctx := context.Background()
	objs := buildKustomization(t, filepath.Join(testenv.RepoRoot(), "config", "default"))

	kinds := map[string]int{}
	for _, obj := range objs {
		kinds[obj.GetKind()]++
	}
	for kind, want := range map[string]int{
		"Namespace": 1, "CustomResourceDefinition": 3, "ServiceAccount": 2, "ClusterRole": 3,
		"ClusterRoleBinding": 2, "Role": 1, "RoleBinding": 1, "Deployment": 1, "Service": 1, "DaemonSet": 1,
	} {
		if kinds[kind] != want {
			t.Errorf("config/default has %d %s, want %d", kinds[kind], kind, want)
		}
	}

	// Namespaced objects can only be dry-run into a namespace that exists.
	for _, obj := range objs {
		if obj.GetKind() == "Namespace" {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: obj.GetName()}}
			if err := env.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
		}
	}
	for _, obj := range objs {
		err := env.Client.Patch(ctx, obj, client.Apply, client.DryRunAll,
			client.FieldOwner("admission-test"), client.ForceOwnership)
		if err != nil {
			t.Errorf("%s %s/%s refused: %v", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
		}
	}
}

// TestCRDsFitClientSideApply guards the size limit that `kubectl apply` (client-side) puts on an
// object: it keeps a copy in an annotation, and annotations are limited to 256 KiB in total.
func TestCRDsFitClientSideApply(t *testing.T) {
	const annotationLimit = 256 * 1024
	for _, obj := range buildKustomization(t, filepath.Join(testenv.RepoRoot(), "config", "crd")) {
		data, err := obj.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > annotationLimit*3/4 {
			t.Errorf("CRD %s is %d bytes as JSON; over 3/4 of the %d-byte annotation limit of kubectl apply",
				obj.GetName(), len(data), annotationLimit)
		}
	}
}
