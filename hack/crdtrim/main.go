// Command crdtrim removes the field descriptions that controller-gen copies from embedded
// Kubernetes types (an OSArtifact's exporter JobSpecs and PVC spec) into a CRD.
//
// Those descriptions repeat the Kubernetes API reference and make the OSArtifact CRD about
// 700 KB, too large for `kubectl apply` (client-side apply keeps the whole object in an
// annotation limited to 256 KiB). Our own fields keep their descriptions, so `kubectl explain`
// still documents them.
//
// Usage: crdtrim FILE PROPERTY.PATH... where each path names a property below the schema root,
// e.g. spec.exporters. The description of the named property itself is kept.
package main

import (
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: crdtrim FILE PROPERTY.PATH...")
		os.Exit(2)
	}
	if err := trimFile(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "crdtrim:", err)
		os.Exit(1)
	}
}

func trimFile(path string, propertyPaths []string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var crd map[string]any
	if err := yaml.Unmarshal(raw, &crd); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	versions, _ := dig(crd, "spec", "versions").([]any)
	if len(versions) == 0 {
		return fmt.Errorf("%s: no spec.versions", path)
	}
	for _, v := range versions {
		root := dig(v, "schema", "openAPIV3Schema")
		for _, p := range propertyPaths {
			node := root
			for _, name := range strings.Split(p, ".") {
				node = dig(node, "properties", name)
			}
			schema, ok := node.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: no property %s in the schema", path, p)
			}
			for key, child := range schema {
				if key != "description" {
					stripDescriptions(child)
				}
			}
		}
	}
	out, err := yaml.Marshal(crd)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte("---\n"), out...), 0o644)
}

func dig(node any, keys ...string) any {
	for _, k := range keys {
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[k]
	}
	return node
}

// stripDescriptions deletes every description keyword below node. A property that happens to be
// called "description" is a schema (a map), not a string, so it survives.
func stripDescriptions(node any) {
	switch n := node.(type) {
	case map[string]any:
		if _, isText := n["description"].(string); isText {
			delete(n, "description")
		}
		for _, child := range n {
			stripDescriptions(child)
		}
	case []any:
		for _, child := range n {
			stripDescriptions(child)
		}
	}
}
