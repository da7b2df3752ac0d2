package cmd

import (
	"bytes"
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
