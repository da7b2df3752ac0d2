package nodeop_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/jobspec"
)

func TestCordonIsOwnedAndUndone(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	free := f.node(f.label + "-free")
	taken := f.node(f.label+"-taken", preCordoned)
	op := f.nodeOp("cordon", func(s *kairosv1alpha1.NodeOpSpec) { s.Cordon = true; s.Concurrency = 1 })

	f.waitJob(op, free)
	n := f.getNode(free)
	if !n.Spec.Unschedulable || n.Annotations[kairosv1alpha1.AnnotationCordonedBy] != f.get(op).CordonOwner() {
		t.Fatalf("node %s: unschedulable %v, annotation %q", free, n.Spec.Unschedulable, n.Annotations[kairosv1alpha1.AnnotationCordonedBy])
	}
	f.succeedJob(op, free)
	f.waitNode(op, free, kairosv1alpha1.NodeCompleted)
	if n := f.getNode(free); n.Spec.Unschedulable || n.Annotations[kairosv1alpha1.AnnotationCordonedBy] != "" {
		t.Errorf("node %s still cordoned after success", free)
	}

	// A node someone else cordoned is worked on, not marked, and left cordoned.
	f.waitJob(op, taken)
	if a := f.getNode(taken).Annotations[kairosv1alpha1.AnnotationCordonedBy]; a != "" {
		t.Errorf("pre-cordoned node got our mark %q", a)
	}
	f.succeedJob(op, taken)
	f.waitPhase(op, kairosv1alpha1.NodeOpCompleted)
	if !f.getNode(taken).Spec.Unschedulable {
		t.Error("a node cordoned by someone else was uncordoned")
	}
	f.eventually("an Event for each node step", func() bool {
		reasons := f.eventReasons(op)
		for _, want := range []string{"NodeStarted", "Cordoned", "JobCreated", "Uncordoned", "NodeCompleted"} {
			if !reasons[want] {
				return false
			}
		}
		return true
	})
}

func TestFailedNodeStaysCordonedUnlessAsked(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	a, b := f.node(f.label+"-a"), f.node(f.label+"-b")
	// Target each node through a label of its own.
	for _, n := range []string{a, b} {
		node := f.getNode(n)
		patch := client.MergeFrom(node.DeepCopy())
		node.Labels["pick"] = n
		if err := envClient().Patch(f.ctx, node, patch); err != nil {
			t.Fatal(err)
		}
	}
	stays := f.nodeOp("fail-stays", func(s *kairosv1alpha1.NodeOpSpec) {
		s.Cordon = true
		s.NodeSelector.MatchLabels["pick"] = kairosv1alpha1.LabelValue(a)
	})
	released := f.nodeOp("fail-released", func(s *kairosv1alpha1.NodeOpSpec) {
		s.Cordon, s.UncordonOnFailure = true, true
		s.NodeSelector.MatchLabels["pick"] = kairosv1alpha1.LabelValue(b)
	})
	f.failJob(stays, a)
	f.failJob(released, b)
	f.waitPhase(stays, kairosv1alpha1.NodeOpFailed)
	f.waitPhase(released, kairosv1alpha1.NodeOpFailed)
	if !f.getNode(a).Spec.Unschedulable {
		t.Error("a failed node was uncordoned without uncordonOnFailure")
	}
	if f.getNode(b).Spec.Unschedulable {
		t.Error("uncordonOnFailure left the failed node cordoned")
	}
}

func TestDrainEvictsThenRunsJob(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	node := f.node(f.label + "-w")
	f.workload("web", node, nil)
	op := f.nodeOp("drain", func(s *kairosv1alpha1.NodeOpSpec) {
		s.Cordon = true
		s.DrainOptions = &kairosv1alpha1.DrainOptions{Enabled: true, GracePeriodSeconds: ptr.To[int32](0), TimeoutSeconds: ptr.To[int32](30)}
	})
	f.waitJob(op, node)
	if f.podExists("web") {
		t.Error("the Job started before the node was drained")
	}
	f.succeedJob(op, node)
	f.waitPhase(op, kairosv1alpha1.NodeOpCompleted)
}

func TestDrainBlockedByPodDisruptionBudgetFailsAfterTimeout(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	node := f.node(f.label + "-w")
	f.workload("db-0", node, map[string]string{"app": "db"})
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: f.ns},
		Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptr.To(intstr.FromInt32(1)),
			Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
		},
	}
	if err := envClient().Create(f.ctx, pdb); err != nil {
		t.Fatal(err)
	}
	// Without a disruption controller in this tier, the budget's status is set by hand.
	f.eventually("PDB status", func() bool {
		if err := envClient().Get(f.ctx, client.ObjectKeyFromObject(pdb), pdb); err != nil {
			return false
		}
		pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1, DisruptionsAllowed: 0}
		return envClient().Status().Update(f.ctx, pdb) == nil
	})

	op := f.nodeOp("blocked", func(s *kairosv1alpha1.NodeOpSpec) {
		s.Cordon = true
		s.DrainOptions = &kairosv1alpha1.DrainOptions{Enabled: true, GracePeriodSeconds: ptr.To[int32](0), TimeoutSeconds: ptr.To[int32](2)}
	})
	st := f.waitNode(op, node, kairosv1alpha1.NodeFailed)
	f.eventually("a NodeFailed warning", func() bool { return f.eventReasons(op)["NodeFailed"] })
	if !contains(st.Message, "db-0") || !contains(st.Message, "Drain failed") {
		t.Errorf("message %q does not name the blocking pod", st.Message)
	}
	if !f.podExists("db-0") || f.job(op, node) != nil {
		t.Error("the protected pod was evicted or the Job ran anyway")
	}
	if !f.getNode(node).Spec.Unschedulable {
		t.Error("a node that failed to drain should stay cordoned by default")
	}
}

func TestVerifiedReboot(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	node := f.node(f.label + "-w")
	op := f.nodeOp("reboot", func(s *kairosv1alpha1.NodeOpSpec) { s.RebootOnSuccess = true; s.Cordon = true })
	job := f.waitJob(op, node)
	rebootPod := jobspec.RebootPodName(f.get(op), node)
	if !f.podExists(rebootPod) {
		t.Fatal("no reboot pod next to the Job")
	}
	if job.Annotations[jobspec.AnnotationBootID] != "boot-1" {
		t.Errorf("Job records boot ID %q", job.Annotations[jobspec.AnnotationBootID])
	}
	f.succeedJob(op, node)
	st := f.waitNode(op, node, kairosv1alpha1.NodeRunning)
	f.eventually("waiting for reboot", func() bool {
		st = f.get(op).Status.NodeStatuses[node]
		return contains(st.Message, "reboot")
	})
	if st.RebootStatus != kairosv1alpha1.RebootPending || !f.getNode(node).Spec.Unschedulable {
		t.Fatalf("before the reboot: rebootStatus %q, cordoned %v", st.RebootStatus, f.getNode(node).Spec.Unschedulable)
	}
	f.reboot(node)
	st = f.waitNode(op, node, kairosv1alpha1.NodeCompleted)
	if st.RebootStatus != kairosv1alpha1.RebootCompleted {
		t.Errorf("rebootStatus %q, want completed", st.RebootStatus)
	}
	f.eventually("reboot pod removed", func() bool { return !f.podExists(rebootPod) })
	if f.getNode(node).Spec.Unschedulable {
		t.Error("node still cordoned after the verified reboot")
	}
}

func TestRebootThatNeverHappensFailsTheNode(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	nodes := f.nodes("w", 2)
	op := f.nodeOp("no-reboot", func(s *kairosv1alpha1.NodeOpSpec) {
		s.RebootOnSuccess, s.StopOnFailure, s.Concurrency = true, true, 1
		s.RebootTimeoutSeconds = ptr.To[int32](10)
	})
	f.succeedJob(op, nodes[0])
	start := time.Now()
	st := f.waitNode(op, nodes[0], kairosv1alpha1.NodeFailed)
	if !contains(st.Message, "did not reboot") {
		t.Errorf("message %q", st.Message)
	}
	if waited := time.Since(start); waited < 5*time.Second {
		t.Errorf("failed after %s, before the 10s reboot timeout", waited)
	}
	f.waitPhase(op, kairosv1alpha1.NodeOpFailed)
	if f.job(op, nodes[1]) != nil {
		t.Error("stopOnFailure did not stop the rollout after the reboot timeout")
	}
}

func TestJobFailureCancelsPendingReboot(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	node := f.node(f.label + "-w")
	op := f.nodeOp("cancel", func(s *kairosv1alpha1.NodeOpSpec) { s.RebootOnSuccess = true })
	f.waitJob(op, node)
	rebootPod := jobspec.RebootPodName(f.get(op), node)
	f.failJob(op, node)
	st := f.waitNode(op, node, kairosv1alpha1.NodeFailed)
	if st.RebootStatus != kairosv1alpha1.RebootCancelled {
		t.Errorf("rebootStatus %q, want cancelled", st.RebootStatus)
	}
	f.eventually("reboot pod removed", func() bool { return !f.podExists(rebootPod) })
}

func TestPreflightSkipsOrProceeds(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	upToDate, old := f.node(f.label+"-current"), f.node(f.label+"-old")
	op := f.nodeOp("preflight", func(s *kairosv1alpha1.NodeOpSpec) {
		s.Cordon = true
		s.Preflight = &kairosv1alpha1.Preflight{Command: []string{"check"}}
	})
	f.finishPreflight(op, upToDate, corev1.PodSucceeded, "already at v3.4.2")
	f.finishPreflight(op, old, corev1.PodSucceeded, "")
	st := f.waitNode(op, upToDate, kairosv1alpha1.NodeCompleted)
	if st.Message != "Skipped by preflight: already at v3.4.2" {
		t.Errorf("message %q", st.Message)
	}
	if f.getNode(upToDate).Spec.Unschedulable || f.job(op, upToDate) != nil {
		t.Error("a skipped node was cordoned or got a Job")
	}
	f.succeedJob(op, old)
	done := f.waitPhase(op, kairosv1alpha1.NodeOpCompleted)
	if !contains(done.Status.Message, "1 skipped") {
		t.Errorf("message %q", done.Status.Message)
	}
}

func TestDeletingNodeOpReleasesItsCordons(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	nodes := f.nodes("w", 4)
	op := f.nodeOp("abandoned", func(s *kairosv1alpha1.NodeOpSpec) { s.Cordon = true; s.Concurrency = 2 })
	f.waitJob(op, nodes[1])
	f.failJob(op, nodes[0]) // failed: stays cordoned while the NodeOp exists
	f.waitJob(op, nodes[2]) // its slot goes to the next node
	if err := envClient().Delete(f.ctx, f.get(op)); err != nil {
		t.Fatal(err)
	}
	f.eventually("the failed node released", func() bool { return !f.getNode(nodes[0]).Spec.Unschedulable })
	// Nodes 1 and 2 still run their Jobs: the NodeOp lets them finish before it goes.
	if !f.getNode(nodes[1]).Spec.Unschedulable || !f.getNode(nodes[2]).Spec.Unschedulable {
		t.Error("uncordoned a node whose Job is still running")
	}
	f.succeedJob(op, nodes[1])
	f.succeedJob(op, nodes[2])
	f.eventually("NodeOp gone", func() bool {
		return envClient().Get(f.ctx, client.ObjectKeyFromObject(op), &kairosv1alpha1.NodeOp{}) != nil
	})
	for _, n := range nodes {
		if f.getNode(n).Spec.Unschedulable {
			t.Errorf("node %s left cordoned by a deleted NodeOp", n)
		}
	}
	if f.job(op, nodes[3]) != nil {
		t.Error("a NodeOp being deleted started another node")
	}
}
