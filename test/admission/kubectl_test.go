package admission

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

// kubectl runs the kubectl that `make testbin` built against the test API server.
func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	kubeconfig, err := env.WriteAdminKubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(testenv.Assets(), "kubectl"), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Dir = testenv.RepoRoot()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// TestKubectlApplyInstallsTheOperator installs the operator as the README says, with
// client-side apply: it keeps a copy of each object in an annotation, which must fit.
func TestKubectlApplyInstallsTheOperator(t *testing.T) {
	out := kubectl(t, "apply", "-k", "config/default")
	for _, want := range []string{
		"customresourcedefinition.apiextensions.k8s.io/osartifacts.build.kairos.io",
		"deployment.apps/kairos-operator-controller-manager created",
		"clusterrole.rbac.authorization.k8s.io/kairos-operator-manager created",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl apply output lacks %q:\n%s", want, out)
		}
	}
}

// TestKubectlGetShowsProgress checks the printer columns and short names.
func TestKubectlGetShowsProgress(t *testing.T) {
	ns := newNamespace(t)
	op := &kairosv1alpha1.NodeOp{}
	op.Name, op.Namespace = "columns", ns
	op.Spec.Command = []string{"true"}
	if err := env.Client.Create(context.Background(), op); err != nil {
		t.Fatal(err)
	}
	op.Status.Phase = kairosv1alpha1.NodeOpRunning
	op.Status.NodeCounts = kairosv1alpha1.NodeCounts{TotalNodes: 5, CompletedNodes: 1, FailedNodes: 1, RunningNodes: 2, Progress: "2/5"}
	if err := env.Client.Status().Update(context.Background(), op); err != nil {
		t.Fatal(err)
	}

	out := kubectl(t, "get", "nop", "-n", ns)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME PHASE PROGRESS RUNNING FAILED AGE" {
		t.Fatalf("kubectl get nop:\n%s", out)
	}
	if got := strings.Fields(lines[1]); len(got) < 5 || strings.Join(got[:5], " ") != "columns Running 2/5 2 1" {
		t.Errorf("row %q, want columns Running 2/5 2 1 <age>", lines[1])
	}
	if all := kubectl(t, "get", "kairos", "-n", ns); !strings.Contains(all, "nodeop.operator.kairos.io/columns") {
		t.Errorf("kubectl get kairos does not list the NodeOp:\n%s", all)
	}
	for _, short := range []string{"nopu", "osa"} {
		kubectl(t, "get", short, "-n", ns) // fails the test if the short name is unknown
	}
}
