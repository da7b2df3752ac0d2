// Package admission checks the CRDs against a real kube-apiserver: the reference README's
// examples are accepted unchanged with their documented defaults, bad specs are refused with a
// message naming the field, one-shot fields cannot be edited, and config/default applies.
package admission

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(m, &env))
}

var namespaceSeq atomic.Int32

// newNamespace creates a namespace of its own for a test, so that objects with the same name in
// different tests never meet.
func newNamespace(t *testing.T) string {
	t.Helper()
	return env.CreateNamespace(t, fmt.Sprintf("adm-%d", namespaceSeq.Add(1)))
}

// decodeDocs splits a multi-document YAML file into objects, sent to the API server exactly as
// written (no round trip through Go types, which could hide unknown fields).
func decodeDocs(t *testing.T, data string) []*unstructured.Unstructured {
	t.Helper()
	var objs []*unstructured.Unstructured
	for _, doc := range strings.Split(data, "\n---") {
		if strings.TrimSpace(strings.TrimPrefix(doc, "---")) == "" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatalf("parse YAML: %v\n%s", err, doc)
		}
		objs = append(objs, u)
	}
	return objs
}

// create sends obj to the API server into namespace ns with strict field validation, so that
// fields the schema does not know are refused rather than silently dropped.
func create(ns string, obj *unstructured.Unstructured) error {
	obj.SetNamespace(ns)
	return env.Client.Create(context.Background(), obj, client.FieldValidation(metav1.FieldValidationStrict))
}

func createYAML(t *testing.T, ns, data string) error {
	t.Helper()
	objs := decodeDocs(t, data)
	if len(objs) != 1 {
		t.Fatalf("want one object, got %d", len(objs))
	}
	return create(ns, objs[0])
}
