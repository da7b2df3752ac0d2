package admission

import (
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

const (
	nodeOpHeader = "apiVersion: operator.kairos.io/v1alpha1\nkind: NodeOp\nmetadata: {name: bad}\n"
	upgradeHead  = "apiVersion: operator.kairos.io/v1alpha1\nkind: NodeOpUpgrade\nmetadata: {name: bad}\n"
	artifactHead = "apiVersion: build.kairos.io/v1alpha2\nkind: OSArtifact\nmetadata: {name: bad}\n"
	goodImage    = "quay.io/kairos/opensuse:leap-15.6-standard-amd64-generic-v3.4.2-k3sv1.30.11-k3s1"
)

// TestInvalidSpecsAreRefused sends bad objects and checks that the API server refuses each with a
// message that names the offending field, so `kubectl apply` tells the user what to fix.
func TestInvalidSpecsAreRefused(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want []string // all must appear in the error
	}{
		// NodeOp
		{"NodeOp without command", nodeOpHeader + "spec: {image: busybox}",
			[]string{"spec.command", "Required value"}},
		{"NodeOp with empty command", nodeOpHeader + "spec: {command: []}",
			[]string{"spec.command", "at least 1 item"}},
		{"NodeOp with blank program", nodeOpHeader + "spec: {command: ['', x]}",
			[]string{"spec.command", "command[0] must name the program to run"}},
		{"negative concurrency", nodeOpHeader + "spec: {command: ['true'], concurrency: -1}",
			[]string{"spec.concurrency", "greater than or equal to 0"}},
		{"drain without cordon", nodeOpHeader + "spec: {command: ['true'], drainOptions: {enabled: true}}",
			[]string{"spec.drainOptions.enabled", "requires cordon: true"}},
		{"drain with cordon false", nodeOpHeader + "spec: {command: ['true'], cordon: false, drainOptions: {enabled: true}}",
			[]string{"spec.drainOptions.enabled", "requires cordon: true"}},
		{"verify without reboot", nodeOpHeader + "spec: {command: ['true'], verify: {bootState: active}}",
			[]string{"spec.verify", "requires rebootOnSuccess: true"}},
		{"verify checking nothing", nodeOpHeader + "spec: {command: ['true'], rebootOnSuccess: true, verify: {}}",
			[]string{"spec.verify", "must check something"}},
		{"verify an unknown boot state", nodeOpHeader + "spec: {command: ['true'], rebootOnSuccess: true, verify: {bootState: fallback}}",
			[]string{"spec.verify.bootState", "Unsupported value", "fallback"}},
		{"relative host mount", nodeOpHeader + "spec: {command: ['true'], hostMountPath: host}",
			[]string{"spec.hostMountPath", "absolute path"}},
		{"host mounted over /", nodeOpHeader + "spec: {command: ['true'], hostMountPath: /}",
			[]string{"spec.hostMountPath", "other than /"}},
		{"unknown selector operator", nodeOpHeader + "spec: {command: ['true'], nodeSelector: {matchExpressions: [{key: a, operator: Equals, values: [b]}]}}",
			[]string{"spec.nodeSelector.matchExpressions[0].operator", "Unsupported value", "Equals"}},
		{"In without values", nodeOpHeader + "spec: {command: ['true'], nodeSelector: {matchExpressions: [{key: a, operator: In}]}}",
			[]string{"spec.nodeSelector.matchExpressions[0]", "values must be non-empty for In and NotIn"}},
		{"Exists with values", nodeOpHeader + "spec: {command: ['true'], nodeSelector: {matchExpressions: [{key: a, operator: Exists, values: [b]}]}}",
			[]string{"spec.nodeSelector.matchExpressions[0]", "empty for Exists and DoesNotExist"}},
		{"bad selector key", nodeOpHeader + "spec: {command: ['true'], nodeSelector: {matchExpressions: [{key: 'not a key!', operator: Exists}]}}",
			[]string{"spec.nodeSelector.matchExpressions[0].key", "valid label key"}},
		{"bad matchLabels key", nodeOpHeader + "spec: {command: ['true'], nodeSelector: {matchLabels: {'bad key': x}}}",
			[]string{"spec.nodeSelector", "matchLabels keys must be valid label keys"}},
		{"bad matchLabels value", nodeOpHeader + "spec: {command: ['true'], nodeSelector: {matchLabels: {kairos.io/managed: 'yes please'}}}",
			[]string{"spec.nodeSelector.matchLabels.kairos.io/managed", "should match"}},
		{"label value too long", nodeOpHeader + "spec: {command: ['true'], nodeSelector: {matchExpressions: [{key: a, operator: In, values: [" + strings.Repeat("v", 64) + "]}]}}",
			[]string{"spec.nodeSelector.matchExpressions[0].values[0]", "may not be more than 63"}},
		{"grace period below -1", nodeOpHeader + "spec: {command: ['true'], cordon: true, drainOptions: {enabled: true, gracePeriodSeconds: -5}}",
			[]string{"spec.drainOptions.gracePeriodSeconds", "greater than or equal to -1"}},
		{"negative drain timeout", nodeOpHeader + "spec: {command: ['true'], cordon: true, drainOptions: {enabled: true, timeoutSeconds: -1}}",
			[]string{"spec.drainOptions.timeoutSeconds", "greater than or equal to 0"}},
		{"negative backoff limit", nodeOpHeader + "spec: {command: ['true'], backoffLimit: -1}",
			[]string{"spec.backoffLimit", "greater than or equal to 0"}},
		{"misspelt field", nodeOpHeader + "spec: {command: ['true'], concurency: 2}",
			[]string{`unknown field "spec.concurency"`}},
		{"string concurrency", nodeOpHeader + "spec: {command: ['true'], concurrency: two}",
			[]string{"spec.concurrency", "integer"}},

		// NodeOpUpgrade
		{"upgrade without image", upgradeHead + "spec: {concurrency: 1}",
			[]string{"spec.image", "Required value"}},
		{"upgrade with empty image", upgradeHead + "spec: {image: ''}",
			[]string{"spec.image", "at least 1 chars"}},
		{"upgrade of nothing", upgradeHead + "spec: {image: " + goodImage + ", upgradeActive: false}",
			[]string{"spec.upgradeActive", "nothing to upgrade"}},
		{"upgrade negative concurrency", upgradeHead + "spec: {image: " + goodImage + ", concurrency: -3}",
			[]string{"spec.concurrency", "greater than or equal to 0"}},
		{"upgrade empty exclude path", upgradeHead + "spec: {image: " + goodImage + ", excludePaths: ['']}",
			[]string{"spec.excludePaths[0]", "at least 1 chars"}},
		{"upgrade bad selector", upgradeHead + "spec: {image: " + goodImage + ", nodeSelector: {matchExpressions: [{key: a, operator: NotIn}]}}",
			[]string{"spec.nodeSelector.matchExpressions[0]", "values must be non-empty"}},

		// OSArtifact
		{"artifact without source", artifactHead + "spec: {iso: true}",
			[]string{"spec", "exactly one image source"}},
		{"artifact with two sources", artifactHead + "spec: {imageName: a, baseImageName: b, iso: true}",
			[]string{"spec", "exactly one image source"}},
		{"artifact with empty image", artifactHead + "spec: {imageName: '', iso: true}",
			[]string{"spec.imageName", "at least 1 chars"}},
		{"artifact without formats", artifactHead + "spec: {imageName: a}",
			[]string{"spec", "nothing to build"}},
		{"artifact with bad disk size", artifactHead + "spec: {imageName: a, cloudImage: true, diskSize: ten gigs}",
			[]string{"spec.diskSize", "should match"}},
		{"netboot without iso", artifactHead + "spec: {imageName: a, netboot: true}",
			[]string{"spec.netboot", "set iso: true"}},
		{"netboot URL not http", artifactHead + "spec: {imageName: a, iso: true, netboot: true, netbootURL: 'ftp://x'}",
			[]string{"spec.netbootURL", "http:// or https://"}},
		{"netboot URL without netboot", artifactHead + "spec: {imageName: a, iso: true, netbootURL: 'http://x'}",
			[]string{"spec.netbootURL", "only used with netboot"}},
		{"dockerfile without secret name", artifactHead + "spec: {baseImageDockerfile: {key: Dockerfile}, iso: true}",
			[]string{"spec.baseImageDockerfile.name", "Required value"}},
		{"template values without dockerfile", artifactHead + "spec: {imageName: a, iso: true, dockerfileTemplateValues: {A: b}}",
			[]string{"spec.dockerfileTemplateValues", "only apply to baseImageDockerfile"}},
		{"cloud config without key", artifactHead + "spec: {imageName: a, iso: true, cloudConfigRef: {name: cc}}",
			[]string{"spec.cloudConfigRef.key", "Required value"}},
	}
	ns := newNamespace(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := createYAML(t, ns, tc.yaml)
			if err == nil {
				t.Fatalf("accepted, want refused with %q", tc.want)
			}
			if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
				t.Fatalf("want an Invalid or BadRequest error, got %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
		})
	}
}
