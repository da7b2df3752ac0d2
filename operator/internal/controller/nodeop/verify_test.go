package nodeop_test

import (
	"testing"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// A verified reboot: a node counts as done only when it reports, for its new boot, the version
// its Job installed on the active system; a node that came back on the fallback system fails
// and stopOnFailure keeps the rest of the rollout from starting.
func TestNodesAreVerifiedAfterTheirReboot(t *testing.T) {
	startOperator(t)
	f := newFixture(t)
	nodes := f.nodes("v", 3)
	op := f.nodeOp("verify", func(s *kairosv1alpha1.NodeOpSpec) {
		s.Cordon, s.RebootOnSuccess, s.StopOnFailure, s.Concurrency = true, true, true, 1
		s.Verify = &kairosv1alpha1.Verification{BootState: "active", JobReportedVersion: true}
	})
	const report = "KAIROS_VERSION=v3.4.2\nKAIROS_SOFTWARE_VERSION=v1.32.4+k3s1\n"

	// The first node reboots, but its labels still describe the previous boot: it waits.
	f.succeedJobReporting(op, nodes[0], report)
	f.reboot(nodes[0])
	f.eventually("the node to wait for its labeler", func() bool {
		return contains(f.get(op).Status.NodeStatuses[nodes[0]].Message, "Verifying: the node labeler has not labelled the new boot")
	})
	f.rebootInto(nodes[0], map[string]string{
		"kairos.io/boot-state": "active", "kairos.io/version": "v3.4.2", "kairos.io/software-version": "v1.32.4-k3s1",
	})
	st := f.waitNode(op, nodes[0], kairosv1alpha1.NodeCompleted)
	if want := "Completed: booted active, runs v3.4.2 (v1.32.4+k3s1)"; st.Message != want {
		t.Errorf("message %q, want %q", st.Message, want)
	}
	if f.getNode(nodes[0]).Spec.Unschedulable {
		t.Error("the verified node is still cordoned")
	}

	// The second node comes back on the passive system: it fails and stays cordoned.
	f.succeedJobReporting(op, nodes[1], report)
	f.rebootInto(nodes[1], map[string]string{"kairos.io/boot-state": "passive", "kairos.io/version": "v3.4.1"})
	st = f.waitNode(op, nodes[1], kairosv1alpha1.NodeFailed)
	if want := "Upgrade not verified: the node booted the passive (fallback) system, not active"; !contains(st.Message, want) {
		t.Errorf("message %q, want it to contain %q", st.Message, want)
	}
	done := f.waitPhase(op, kairosv1alpha1.NodeOpFailed)
	if p := done.Status.NodeStatuses[nodes[2]].Phase; p != kairosv1alpha1.NodePending {
		t.Errorf("third node %s after a failed verification, want Pending (stopOnFailure)", p)
	}
	if !f.getNode(nodes[1]).Spec.Unschedulable {
		t.Error("the node that failed verification was uncordoned")
	}
}
