package cmd

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func run(t *testing.T, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	root := NewRootCommand(genericiooptions.IOStreams{Out: &out, ErrOut: &out})
	root.SetOut(&out)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		t.Fatalf("kubectl kairos %s: %v", strings.Join(args, " "), err)
	}
	return out.String()
}

func TestHelpSpeaksKubectlKairos(t *testing.T) {
	help := run(t, "exec-on-nodes", "--help")
	for _, want := range []string{"kubectl kairos exec-on-nodes [flags] -- COMMAND", "Examples:", "--kubeconfig", "--namespace"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	if root := run(t, "--help"); !strings.Contains(root, "kubectl kairos [command]") {
		t.Errorf("root help:\n%s", root)
	}
}

func TestVersion(t *testing.T) {
	if out := run(t, "version"); !strings.HasPrefix(out, "kubectl-kairos ") {
		t.Errorf("version printed %q", out)
	}
}

func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		if out := run(t, "completion", shell); len(out) < 200 {
			t.Errorf("completion %s printed %d bytes", shell, len(out))
		}
	}
	// What kubectl_complete-kairos asks: the verbs after "kubectl kairos".
	out := run(t, "__complete", "")
	for _, verb := range []string{"exec-on-nodes", "status", "version", "completion"} {
		if !strings.Contains(out, verb) {
			t.Errorf("completion of verbs lacks %s:\n%s", verb, out)
		}
	}
	if out := run(t, "__complete", "exec-on-nodes", "--con"); !strings.Contains(out, "--concurrency") {
		t.Errorf("flag completion:\n%s", out)
	}
}

// TestCompletionShim runs plugin/kubectl_complete-kairos the way kubectl does, with the plugin
// built onto PATH.
func TestCompletionShim(t *testing.T) {
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "kubectl-kairos"), "../../cmd/kubectl-kairos")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build plugin: %v\n%s", err, out)
	}
	shim := exec.Command("../../kubectl_complete-kairos", "stat")
	shim.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := shim.CombinedOutput()
	if err != nil {
		t.Fatalf("shim: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "status") {
		t.Errorf("kubectl_complete-kairos stat answered:\n%s", out)
	}
}
