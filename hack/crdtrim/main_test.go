package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: root doc
        properties:
          spec:
            description: spec doc
            properties:
              mine:
                description: keep me
                type: string
              embedded:
                description: embedded doc stays
                properties:
                  inner:
                    description: drop me
                    properties:
                      description:
                        description: drop me too
                        type: string
                    type: object
                type: object
            type: object
        type: object
`

func TestTrimFileDropsOnlyDescriptionsBelowTheNamedProperty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crd.yaml")
	if err := os.WriteFile(path, []byte(sampleCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := trimFile(path, []string{"spec.embedded"}); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, kept := range []string{"root doc", "spec doc", "keep me", "embedded doc stays"} {
		if !strings.Contains(got, kept) {
			t.Errorf("lost %q:\n%s", kept, got)
		}
	}
	for _, dropped := range []string{"drop me"} {
		if strings.Contains(got, dropped) {
			t.Errorf("still has %q:\n%s", dropped, got)
		}
	}
	// A property that is itself named "description" is a schema, not a doc string: it stays.
	if !strings.Contains(got, "description:\n") {
		t.Errorf("the property named description was removed:\n%s", got)
	}
}

func TestTrimFileRefusesUnknownPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crd.yaml")
	if err := os.WriteFile(path, []byte(sampleCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := trimFile(path, []string{"spec.missing"}); err == nil || !strings.Contains(err.Error(), "spec.missing") {
		t.Fatalf("got %v, want an error naming spec.missing", err)
	}
}
