package nodeop_test

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

func TestConcurrencyOneControlPlaneFirst(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	workers := f.nodes("w", 3)
	cp := f.nodes("cp", 2, asControlPlane)
	op := f.nodeOp("one-by-one", func(s *kairosv1alpha1.NodeOpSpec) { s.Concurrency = 1 })

	// Control-plane nodes come first, one at a time, then the workers by name.
	order := append(append([]string{}, cp...), workers...)
	for i, node := range order {
		f.waitJob(op, node)
		if got := f.jobCount(op); got != i+1 {
			t.Fatalf("after starting %s there are %d Jobs, want %d (concurrency 1)", node, got, i+1)
		}
		if got := f.get(op).Status.RunningNodes; got > 1 {
			t.Fatalf("%d nodes in flight with concurrency 1", got)
		}
		f.succeedJob(op, node)
		f.waitNode(op, node, kairosv1alpha1.NodeCompleted)
	}
	done := f.waitPhase(op, kairosv1alpha1.NodeOpCompleted)
	if done.Status.Progress != "5/5" || done.Status.CompletedNodes != 5 {
		t.Errorf("progress %q, completed %d", done.Status.Progress, done.Status.CompletedNodes)
	}
	if done.Status.ObservedGeneration != done.Generation {
		t.Errorf("observedGeneration %d, generation %d", done.Status.ObservedGeneration, done.Generation)
	}
}

func TestConcurrencyTwoAndZero(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	nodes := f.nodes("w", 4)
	two := f.nodeOp("two", func(s *kairosv1alpha1.NodeOpSpec) { s.Concurrency = 2 })
	f.waitJob(two, nodes[0])
	f.waitJob(two, nodes[1])
	if f.jobCount(two) != 2 {
		t.Fatalf("%d Jobs with concurrency 2", f.jobCount(two))
	}
	f.succeedJob(two, nodes[0])
	f.waitJob(two, nodes[2])
	if f.jobCount(two) != 3 {
		t.Fatalf("%d Jobs after one finished, want 3", f.jobCount(two))
	}
	for _, n := range nodes[1:] {
		f.succeedJob(two, n)
	}
	f.waitPhase(two, kairosv1alpha1.NodeOpCompleted)

	all := f.nodeOp("all", func(s *kairosv1alpha1.NodeOpSpec) { s.Concurrency = 0 })
	for _, n := range nodes {
		f.waitJob(all, n)
	}
	// The status follows the Jobs' creation.
	f.eventually("all 4 nodes in flight with concurrency 0", func() bool { return f.get(all).Status.RunningNodes == 4 })
}

func TestSelectorAndFixedTargets(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	f.nodes("w", 2)
	edge := f.node(f.label+"-edge", func(n *corev1Node) { n.Labels["tier"] = "edge" })
	op := f.nodeOp("edge-only", func(s *kairosv1alpha1.NodeOpSpec) {
		s.NodeSelector.MatchLabels["tier"] = "edge"
		s.Paused = true
	})
	f.eventually("targets recorded", func() bool { return f.get(op).Status.TotalNodes == 1 })
	// A node that joins after the start is not swept in.
	f.node(f.label+"-late", func(n *corev1Node) { n.Labels["tier"] = "edge" })
	unpause(f, op)
	f.succeedJob(op, edge)
	done := f.waitPhase(op, kairosv1alpha1.NodeOpCompleted)
	if len(done.Status.NodeStatuses) != 1 || f.jobCount(op) != 1 {
		t.Errorf("targets %v, %d Jobs; want only %s", done.Status.NodeStatuses, f.jobCount(op), edge)
	}
}

func TestNoMatchingNodesEndsAtOnce(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	op := f.nodeOp("nothing", func(s *kairosv1alpha1.NodeOpSpec) { s.NodeSelector.MatchLabels["tier"] = "nowhere" })
	done := f.waitPhase(op, kairosv1alpha1.NodeOpFailed)
	if !contains(done.Status.Message, "No nodes match") {
		t.Errorf("message %q", done.Status.Message)
	}
}

func TestStopOnFailure(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	nodes := f.nodes("w", 3)
	op := f.nodeOp("canary", func(s *kairosv1alpha1.NodeOpSpec) { s.Concurrency = 1; s.StopOnFailure = true })
	f.failJob(op, nodes[0])
	done := f.waitPhase(op, kairosv1alpha1.NodeOpFailed)
	if f.jobCount(op) != 1 {
		t.Errorf("%d Jobs; a failure with stopOnFailure must start no further node", f.jobCount(op))
	}
	if !contains(done.Status.Message, "Stopped after "+nodes[0]) {
		t.Errorf("message %q", done.Status.Message)
	}

	keepGoing := f.nodeOp("keep-going", func(s *kairosv1alpha1.NodeOpSpec) { s.Concurrency = 1 })
	f.failJob(keepGoing, nodes[0])
	f.succeedJob(keepGoing, nodes[1])
	f.succeedJob(keepGoing, nodes[2])
	done = f.waitPhase(keepGoing, kairosv1alpha1.NodeOpFailed)
	if done.Status.FailedNodes != 1 || done.Status.CompletedNodes != 2 {
		t.Errorf("failed %d completed %d, want 1 and 2", done.Status.FailedNodes, done.Status.CompletedNodes)
	}
}

func TestPauseAndResume(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	nodes := f.nodes("w", 2)
	op := f.nodeOp("paused", func(s *kairosv1alpha1.NodeOpSpec) { s.Concurrency = 1; s.Paused = true })
	f.eventually("targets recorded", func() bool { return f.get(op).Status.TotalNodes == 2 })
	if f.jobCount(op) != 0 {
		t.Fatal("a paused NodeOp started a node")
	}
	unpause(f, op)
	f.succeedJob(op, nodes[0])
	f.waitNode(op, nodes[0], kairosv1alpha1.NodeCompleted)
	f.succeedJob(op, nodes[1])
	f.waitPhase(op, kairosv1alpha1.NodeOpCompleted)
}

func TestLongNodeNameAndSameNameInTwoNamespaces(t *testing.T) {
	startOperator(t)
	a, b := newFixture(t), newFixture(t)
	b.label = a.label // both NodeOps target the same node
	long := a.node(a.label + "-worker-0042.rack-17.datacenter-frankfurt.edge.example-corporation.internal")
	opA := a.nodeOp("same-name", nil)
	opB := b.nodeOp("same-name", nil)
	jobA, jobB := a.waitJob(opA, long), b.waitJob(opB, long)
	if jobA.Labels[kairosv1alpha1.LabelNode] != kairosv1alpha1.NodeLabelValue(long) {
		t.Errorf("node label %q", jobA.Labels[kairosv1alpha1.LabelNode])
	}
	a.succeedJob(opA, long)
	a.waitPhase(opA, kairosv1alpha1.NodeOpCompleted)
	if got := b.get(opB).Status.NodeStatuses[long].Phase; got != kairosv1alpha1.NodeRunning {
		t.Errorf("the other namespace's NodeOp moved to %q with the first one", got)
	}
	b.succeedJob(opB, long)
	b.waitPhase(opB, kairosv1alpha1.NodeOpCompleted)
	if jobA.Namespace == jobB.Namespace {
		t.Error("Jobs share a namespace")
	}
}

func unpause(f *fixture, op *kairosv1alpha1.NodeOp) {
	f.t.Helper()
	// A patch, as `kubectl patch` would send: the operator writes status meanwhile, so an
	// update carrying an older resourceVersion could conflict.
	cur := f.get(op)
	patch := client.MergeFrom(cur.DeepCopy())
	cur.Spec.Paused = false
	if err := envClient().Patch(f.ctx, cur, patch); err != nil {
		f.t.Fatal(err)
	}
}
