package execonnodes_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/cmdtest"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(m, &env))
}

func TestCreatesTheNodeOpTheFlagsDescribe(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	out, err := cmdtest.Run(t, kubeconfig, "-n", ns, "exec-on-nodes", "--name", "clean",
		"-l", "kairos.io/managed=true,tier in (edge)", "--concurrency", "3", "--drain", "--reboot",
		"--stop-on-failure", "--image", "alpine:3", "--preflight", "test -f /host/etc/skip && echo skip >/dev/termination-log",
		"--", "sh", "-c", "rm -f /host/var/lib/stale.lock")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != "nodeop.operator.kairos.io/clean created" {
		t.Errorf("output %q", out)
	}
	var op kairosv1alpha1.NodeOp
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "clean"}, &op); err != nil {
		t.Fatal(err)
	}
	s := op.Spec
	if strings.Join(s.Command, " ") != "sh -c rm -f /host/var/lib/stale.lock" || s.Image != "alpine:3" || s.Concurrency != 3 {
		t.Errorf("command %q image %q concurrency %d", s.Command, s.Image, s.Concurrency)
	}
	if !s.Cordon || s.DrainOptions == nil || !s.DrainOptions.Enabled || !ptr.Deref(s.DrainOptions.IgnoreDaemonSets, false) {
		t.Errorf("--drain should cordon and drain (ignoring DaemonSets): cordon %v drain %+v", s.Cordon, s.DrainOptions)
	}
	if !s.RebootOnSuccess || !s.StopOnFailure || s.Preflight == nil || s.Preflight.Command[0] != "sh" {
		t.Errorf("reboot %v stop %v preflight %+v", s.RebootOnSuccess, s.StopOnFailure, s.Preflight)
	}
	sel, err := s.NodeSelector.Selector()
	if err != nil || sel.String() != "kairos.io/managed=true,tier in (edge)" {
		t.Errorf("selector %v (%v)", sel, err)
	}
}

func TestGeneratedNameAndOutputName(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	out, err := cmdtest.Run(t, kubeconfig, "-n", ns, "exec-on-nodes", "-o", "name", "--", "uptime")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "nodeop.operator.kairos.io/exec-") {
		t.Errorf("-o name printed %q", out)
	}
}

func TestDryRunClientPrintsWithoutCreating(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	out, err := cmdtest.Run(t, kubeconfig, "-n", ns, "exec-on-nodes", "--name", "look", "--dry-run=client", "-o", "yaml", "--cordon", "--", "uptime")
	if err != nil {
		t.Fatal(err)
	}
	var printed kairosv1alpha1.NodeOp
	if err := yaml.UnmarshalStrict([]byte(out), &printed); err != nil {
		t.Fatalf("dry-run output does not parse back: %v\n%s", err, out)
	}
	if printed.Name != "look" || printed.Namespace != ns || !printed.Spec.Cordon || printed.Spec.Command[0] != "uptime" || printed.Kind != "NodeOp" {
		t.Errorf("printed %+v", printed)
	}
	var list kairosv1alpha1.NodeOpList
	if err := env.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 0 {
		t.Error("--dry-run=client created a NodeOp")
	}

	// Server dry run: the API server checks it (and would refuse it), nothing is saved.
	if _, err := cmdtest.Run(t, kubeconfig, "-n", ns, "exec-on-nodes", "--dry-run=server", "--", "uptime"); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil || len(list.Items) != 0 {
		t.Errorf("--dry-run=server saved %d NodeOps (%v)", len(list.Items), err)
	}
}

// TestBadInputIsRefusedBeforeAnyAPICall points at a server that does not exist: every error
// must come from the flags, not from a connection attempt.
func TestBadInputIsRefusedBeforeAnyAPICall(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no command", []string{"exec-on-nodes"}, "no command"},
		{"empty command", []string{"exec-on-nodes", "--", ""}, "no command"},
		{"words before --", []string{"exec-on-nodes", "uptime", "--", "ls"}, "before --"},
		{"bad selector", []string{"exec-on-nodes", "-l", "a=(b", "--", "uptime"}, "--selector"},
		{"negative concurrency", []string{"exec-on-nodes", "--concurrency", "-1", "--", "uptime"}, "--concurrency -1"},
		{"bad dry run", []string{"exec-on-nodes", "--dry-run=maybe", "--", "uptime"}, "--dry-run"},
		{"bad output", []string{"exec-on-nodes", "-o", "table", "--", "uptime"}, "-o:"},
		{"bad name", []string{"exec-on-nodes", "--name", "Not_Valid", "--", "uptime"}, "--name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { cmdtest.RefusedOffline(t, tc.want, tc.args...) })
	}
}

func TestOperatorNotInstalled(t *testing.T) {
	bare, err := testenv.StartWithoutCRDs()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bare.Stop() }()
	kubeconfig, err := bare.WriteAdminKubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, err = cmdtest.Run(t, kubeconfig, "exec-on-nodes", "--", "uptime")
	if err == nil || !strings.Contains(err.Error(), "operator is not installed") || !strings.Contains(err.Error(), "kubectl apply -k") {
		t.Fatalf("got %v, want a message that the operator is missing and how to install it", err)
	}
}

// TestOperationNamesComplete asks for completions the way kubectl_complete-kairos does.
func TestOperationNamesComplete(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	if _, err := cmdtest.Run(t, kubeconfig, "-n", ns, "exec-on-nodes", "--name", "clean-logs", "--", "true"); err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"status", "logs"} {
		out, err := cmdtest.Run(t, kubeconfig, "-n", ns, "__complete", verb, "nodeop/cl")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, "nodeop/clean-logs\n") {
			t.Errorf("%s completion:\n%s", verb, out)
		}
	}
}
