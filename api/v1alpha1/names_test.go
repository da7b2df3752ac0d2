package v1alpha1

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestNodeLabelValue(t *testing.T) {
	long := "worker-0042.rack-17.datacenter-frankfurt.edge.example-corporation.internal"
	cases := []struct{ node, want string }{
		{"node-1", "node-1"},
		{"ip-10-0-0-1.eu-west-1.compute.internal", "ip-10-0-0-1.eu-west-1.compute.internal"},
		{strings.Repeat("a", 63), strings.Repeat("a", 63)},
	}
	for _, tc := range cases {
		if got := NodeLabelValue(tc.node); got != tc.want {
			t.Errorf("NodeLabelValue(%q) = %q, want %q", tc.node, got, tc.want)
		}
	}
	for _, node := range []string{long, long + "x", strings.Repeat("b", 64), strings.Repeat("c", 58) + "-----.x" + strings.Repeat("d", 10)} {
		got := NodeLabelValue(node)
		if errs := validation.IsValidLabelValue(got); len(errs) > 0 {
			t.Errorf("NodeLabelValue(%q) = %q is not a label value: %v", node, got, errs)
		}
		if got != NodeLabelValue(node) {
			t.Errorf("NodeLabelValue(%q) is not stable", node)
		}
	}
	if NodeLabelValue(long) == NodeLabelValue(long+"x") {
		t.Error("two long names share a label value")
	}
}

func TestCountNodes(t *testing.T) {
	c := CountNodes(map[string]NodeStatus{
		"a": {Phase: NodeCompleted}, "b": {Phase: NodeFailed}, "c": {Phase: NodeRunning},
		"d": {Phase: NodePreflight}, "e": {Phase: NodePending},
	})
	want := NodeCounts{TotalNodes: 5, CompletedNodes: 1, FailedNodes: 1, RunningNodes: 2, Progress: "2/5"}
	if c != want {
		t.Errorf("CountNodes = %+v, want %+v", c, want)
	}
}
