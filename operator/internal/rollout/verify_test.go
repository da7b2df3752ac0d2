package rollout

import (
	"strings"
	"testing"
	"time"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// upgradedJob is a Job that succeeded a minute ago and reported the version it installed.
func upgradedJob(report map[string]string) func(*Node) {
	return func(n *Node) {
		n.Job = &JobState{Name: "job-" + n.Name, BootIDBefore: "boot-1", Succeeded: true, SucceededAt: now.Add(-time.Minute), Report: report}
	}
}

// reports sets what the node says after its reboot; labelledIn is the boot its labels are from.
func reports(labelledIn, osImage string, labels map[string]string) func(*Node) {
	return func(n *Node) { n.Reported = Reported{Labels: labels, LabelledBootID: labelledIn, OSImage: osImage} }
}

func TestPlanVerifiesTheUpgradeAfterTheReboot(t *testing.T) {
	target := map[string]string{"KAIROS_VERSION": "v3.4.2", "KAIROS_SOFTWARE_VERSION": "v1.32.4+k3s1"}
	newLabels := map[string]string{"kairos.io/boot-state": "active", "kairos.io/version": "v3.4.2", "kairos.io/software-version": "v1.32.4-k3s1"}
	oldLabels := map[string]string{"kairos.io/boot-state": "active", "kairos.io/version": "v3.4.1", "kairos.io/software-version": "v1.32.4-k3s1"}
	passive := map[string]string{"kairos.io/boot-state": "passive", "kairos.io/version": "v3.4.1"}
	full := &kairosv1alpha1.Verification{BootState: "active", JobReportedVersion: true}
	cases := []struct {
		name    string
		verify  *kairosv1alpha1.Verification
		node    Node
		phase   kairosv1alpha1.NodePhase
		message string
		actions []Action
		requeue time.Duration
	}{
		{
			name:  "the new version booted on the active system",
			node:  node("w1", running, cordonedByUs, upgradedJob(target), rebootedTo("boot-2"), reports("boot-2", "", newLabels)),
			phase: running, message: "Uncordoning: booted active, runs v3.4.2 (v1.32.4+k3s1)",
			actions: []Action{act(Uncordon, "w1")},
		},
		{
			name:  "verified and uncordoned: completed with what was verified",
			node:  node("w1", running, upgradedJob(target), rebootedTo("boot-2"), reports("boot-2", "", newLabels)),
			phase: completed, message: "Completed: booted active, runs v3.4.2 (v1.32.4+k3s1)",
		},
		{
			name:  "came back on the passive system",
			node:  node("w1", running, cordonedByUs, upgradedJob(target), rebootedTo("boot-2"), reports("boot-2", "", passive)),
			phase: failed, message: "Upgrade not verified: the node booted the passive (fallback) system, not active",
		},
		{
			name:  "came back on the old version",
			node:  node("w1", running, cordonedByUs, upgradedJob(target), rebootedTo("boot-2"), reports("boot-2", "", oldLabels)),
			phase: failed, message: "the node runs v3.4.1 (v1.32.4-k3s1), not v3.4.2 (v1.32.4+k3s1): it came back on the old version",
		},
		{
			name:  "labels of the previous boot are not trusted: wait for the labeler",
			node:  node("w1", running, cordonedByUs, upgradedJob(target), rebootedTo("boot-2"), reports("boot-1", "", oldLabels)),
			phase: running, message: "Verifying: the node labeler has not labelled the new boot",
			requeue: 14 * time.Minute,
		},
		{
			name:  "the labeler never reports: fail at the reboot deadline",
			node:  node("w1", running, cordonedByUs, jobSucceededAt(now.Add(-16*time.Minute)), rebootedTo("boot-2"), reports("boot-1", "", oldLabels)),
			phase: failed, message: "Upgrade not verified: the node labeler has not labelled the new boot",
		},
		{
			name:   "without labels the version comes from the OS image name",
			verify: &kairosv1alpha1.Verification{JobReportedVersion: true},
			node:   node("w1", running, upgradedJob(target), rebootedTo("boot-2"), reports("", "kairos-ubuntu-24.04 v3.4.2", nil)),
			phase:  completed, message: "runs v3.4.2 (from the OS image name)",
		},
		{
			name:   "an OS image naming a longer version does not pass",
			verify: &kairosv1alpha1.Verification{JobReportedVersion: true},
			node:   node("w1", running, upgradedJob(target), rebootedTo("boot-2"), reports("boot-2", "kairos-ubuntu-24.04 v3.4.20", map[string]string{"kairos.io/boot-state": "active"})),
			phase:  failed, message: `the OS image "kairos-ubuntu-24.04 v3.4.20" does not name v3.4.2`,
		},
		{
			name:  "a Job that reported no version leaves the version unchecked",
			node:  node("w1", running, upgradedJob(nil), rebootedTo("boot-2"), reports("boot-2", "", oldLabels)),
			phase: completed, message: "booted active, version not checked: the Job reported none",
		},
		{
			name:  "no verification before the reboot",
			node:  node("w1", running, cordonedByUs, upgradedJob(target), reports("boot-1", "", oldLabels)),
			phase: running, message: "Waiting for the node to reboot",
			requeue: 14 * time.Minute,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.verify
			if v == nil {
				v = full
			}
			s := Settings{Concurrency: 1, Cordon: true, Reboot: true, RebootTimeout: 15 * time.Minute, Verify: v}
			res := Plan(s, []Node{tc.node}, now)
			got := res.Nodes["w1"]
			if got.Phase != tc.phase || !strings.Contains(got.Message, tc.message) {
				t.Errorf("w1: %s %q, want %s %q", got.Phase, got.Message, tc.phase, tc.message)
			}
			if len(res.Actions) != len(tc.actions) || (len(tc.actions) > 0 && res.Actions[0] != tc.actions[0]) {
				t.Errorf("actions %v, want %v", res.Actions, tc.actions)
			}
			if res.RequeueAfter != tc.requeue {
				t.Errorf("requeueAfter %v, want %v", res.RequeueAfter, tc.requeue)
			}
		})
	}
}
