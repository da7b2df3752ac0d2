package upgrade_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/cmdtest"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/plugintest"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(m, &env))
}

const image = "quay.io/kairos/ubuntu:24.04-standard-amd64-generic-v3.4.2-k3sv1.32.4-k3s1"

func getUpgrade(t *testing.T, ns, name string) *kairosv1alpha1.NodeOpUpgrade {
	t.Helper()
	u := &kairosv1alpha1.NodeOpUpgrade{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestCreatesTheUpgradeTheFlagsDescribe(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	out, err := cmdtest.Run(t, kubeconfig, "-n", ns, "upgrade", "--name", "to-342", "--image", image,
		"-l", "kairos.io/managed=true", "--concurrency", "3", "--recovery", "--force", "--debug",
		"--pull-secret", "regcred", "--pull-secret", "mirror", "--exclude-path", "/var/lib/my data",
		"--stop-on-failure=false")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != "nodeopupgrade.operator.kairos.io/to-342 created" {
		t.Errorf("output %q", out)
	}
	s := getUpgrade(t, ns, "to-342").Spec
	checks := map[string]bool{
		"image":            s.Image == image,
		"concurrency":      s.Concurrency == 3,
		"stopOnFailure":    !s.StopOnFailure,
		"upgradeActive":    ptr.Deref(s.UpgradeActive, false),
		"upgradeRecovery":  ptr.Deref(s.UpgradeRecovery, false),
		"force":            s.Force,
		"debug":            s.Debug,
		"imagePullSecrets": len(s.ImagePullSecrets) == 2 && s.ImagePullSecrets[1].Name == "mirror",
		"excludePaths":     len(s.ExcludePaths) == 1 && s.ExcludePaths[0] == "/var/lib/my data",
		"nodeSelector":     s.NodeSelector != nil && s.NodeSelector.MatchLabels["kairos.io/managed"] == "true",
	}
	for field, ok := range checks {
		if !ok {
			t.Errorf("spec.%s does not match the flags: %+v", field, s)
		}
	}
}

func TestDefaultsAreACanaryRolloutWithAReadableName(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	out, err := cmdtest.Run(t, kubeconfig, "-n", ns, "upgrade", "--image", image, "-o", "name")
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(strings.TrimSpace(out), "nodeopupgrade.operator.kairos.io/")
	if !strings.HasPrefix(name, "upgrade-v3-4-2-k3sv1-32-4-k3s1-") {
		t.Errorf("generated name %q does not say the version", name)
	}
	s := getUpgrade(t, ns, name).Spec
	if s.Concurrency != 1 || !s.StopOnFailure || !ptr.Deref(s.UpgradeActive, false) || ptr.Deref(s.UpgradeRecovery, true) || s.Force {
		t.Errorf("defaults: %+v", s)
	}
}

func TestDryRunPrintsAnObjectThatParsesBack(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	out, err := cmdtest.Run(t, kubeconfig, "-n", ns, "upgrade", "--name", "look", "--image", image, "--recovery", "--no-active", "--dry-run=client", "-o", "yaml")
	if err != nil {
		t.Fatal(err)
	}
	var printed kairosv1alpha1.NodeOpUpgrade
	if err := yaml.UnmarshalStrict([]byte(out), &printed); err != nil {
		t.Fatalf("dry-run output does not parse back: %v\n%s", err, out)
	}
	if printed.Kind != "NodeOpUpgrade" || printed.Name != "look" || ptr.Deref(printed.Spec.UpgradeActive, true) || !ptr.Deref(printed.Spec.UpgradeRecovery, false) {
		t.Errorf("printed %+v", printed)
	}
	var list kairosv1alpha1.NodeOpUpgradeList
	if err := env.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil || len(list.Items) != 0 {
		t.Errorf("--dry-run=client created %d upgrades (%v)", len(list.Items), err)
	}
}

// TestBadInputIsRefusedBeforeAnyAPICall points at a server that does not exist: every error
// must come from the flags.
func TestBadInputIsRefusedBeforeAnyAPICall(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no image", []string{"upgrade"}, "--image is required"},
		{"nothing to upgrade", []string{"upgrade", "--image", image, "--no-active"}, "upgrades nothing"},
		{"bad selector", []string{"upgrade", "--image", image, "-l", "a=(b"}, "--selector"},
		{"negative concurrency", []string{"upgrade", "--image", image, "--concurrency", "-2"}, "--concurrency -2"},
		{"bad pull secret", []string{"upgrade", "--image", image, "--pull-secret", "Reg_Cred"}, "--pull-secret"},
		{"relative exclude path", []string{"upgrade", "--image", image, "--exclude-path", "var/lib"}, "absolute path"},
		{"wait with dry run", []string{"upgrade", "--image", image, "--dry-run=client", "--wait"}, "--wait and --follow"},
		{"follow with dry run", []string{"upgrade", "--image", image, "--dry-run=server", "--follow"}, "--wait and --follow"},
		{"arguments", []string{"upgrade", "--image", image, "v3.4.2"}, "unknown command"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { cmdtest.RefusedOffline(t, tc.want, tc.args...) })
	}
}

// setStatus plays the operator reporting progress.
func setStatus(t *testing.T, ns, name string, phase kairosv1alpha1.NodeOpPhase, message string, nodes map[string]kairosv1alpha1.NodeStatus) {
	t.Helper()
	u := getUpgrade(t, ns, name)
	u.Status.Phase, u.Status.Message, u.Status.NodeStatuses = phase, message, nodes
	u.Status.NodeCounts = kairosv1alpha1.CountNodes(nodes)
	if err := env.Client.Status().Update(context.Background(), u); err != nil {
		t.Fatal(err)
	}
}

func TestWaitFollowsTheUpgradeToTheEnd(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	for _, tc := range []struct {
		name    string
		final   kairosv1alpha1.NodeOpPhase
		wantErr string
		wantOut string
	}{
		{"ok", kairosv1alpha1.NodeOpCompleted, "", "nodeopupgrade/ok Completed: 2/2 nodes done, 0 running, 0 failed"},
		{"broken", kairosv1alpha1.NodeOpFailed, "NodeOpUpgrade broken failed: 1 node failed",
			"Failed nodes:\n  n2: Upgrade not verified: the node booted the passive (fallback) system"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := &plugintest.Buffer{}
			done := make(chan error, 1)
			go func() {
				done <- cmdtest.Kairos(context.Background(), out, kubeconfig, "-n", ns, "upgrade", "--name", tc.name, "--image", image, "--wait")
			}()
			out.WaitFor(t, "nodeopupgrade/"+tc.name+" Pending")
			started := metav1.Now()
			setStatus(t, ns, tc.name, kairosv1alpha1.NodeOpRunning, "1 of 2 nodes running", map[string]kairosv1alpha1.NodeStatus{
				"n1": {Phase: kairosv1alpha1.NodeRunning, Message: "Draining", StartedAt: &started},
				"n2": {Phase: kairosv1alpha1.NodePending},
			})
			out.WaitFor(t, "Running: 0/2 nodes done, 1 running, 0 failed [n1: Draining]")
			second := kairosv1alpha1.NodeStatus{Phase: kairosv1alpha1.NodeCompleted, Message: "Completed"}
			if tc.final == kairosv1alpha1.NodeOpFailed {
				second = kairosv1alpha1.NodeStatus{Phase: kairosv1alpha1.NodeFailed, Message: "Upgrade not verified: the node booted the passive (fallback) system, not active"}
			}
			setStatus(t, ns, tc.name, tc.final, map[bool]string{true: "1 node failed", false: "2 nodes completed"}[tc.final == kairosv1alpha1.NodeOpFailed],
				map[string]kairosv1alpha1.NodeStatus{"n1": {Phase: kairosv1alpha1.NodeCompleted, Message: "Completed"}, "n2": second})
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("--wait did not return after the upgrade finished:\n%s", out)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("output:\n%s\nwant it to contain %q", out, tc.wantOut)
			}
			if strings.Contains(out.String(), "\x1b[") {
				t.Errorf("colour or redraw codes in output that is not a terminal:\n%q", out)
			}
		})
	}
}

func TestInterruptedWaitLeavesTheUpgradeRunning(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	out := &plugintest.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- cmdtest.Kairos(ctx, out, kubeconfig, "-n", ns, "upgrade", "--name", "ctrl-c", "--image", image, "--follow")
	}()
	out.WaitFor(t, "nodeopupgrade/ctrl-c Pending")
	cancel() // Ctrl-C
	if err := <-done; err != nil {
		t.Errorf("interrupted wait returned %v", err)
	}
	out.WaitFor(t, "Stopped watching; NodeOpUpgrade ctrl-c goes on")
	if u := getUpgrade(t, ns, "ctrl-c"); !u.DeletionTimestamp.IsZero() || u.Spec.Paused {
		t.Error("Ctrl-C touched the upgrade")
	}
}

func TestWaitEndsWhenTheUpgradeIsDeleted(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	out := &plugintest.Buffer{}
	done := make(chan error, 1)
	go func() {
		done <- cmdtest.Kairos(context.Background(), out, kubeconfig, "-n", ns, "upgrade", "--name", "gone", "--image", image, "--wait")
	}()
	out.WaitFor(t, "nodeopupgrade/gone Pending")
	if err := env.Client.Delete(context.Background(), getUpgrade(t, ns, "gone")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("got %v, want an error saying the upgrade is gone", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("--wait hung after the upgrade was deleted:\n%s", out)
	}
}
