// Package cmdtest runs the whole plugin in tests, the way a user runs it from a shell.
package cmdtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

// Kairos runs `kubectl kairos ARGS...` with the given kubeconfig, writing to out (without the
// signal handling of main: cancel ctx to play Ctrl-C).
func Kairos(ctx context.Context, out io.Writer, kubeconfig string, args ...string) error {
	root := cmd.NewRootCommand(genericiooptions.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: out})
	root.SetOut(out) // cobra's own output (completions, help)
	root.SetArgs(append([]string{"--kubeconfig", kubeconfig}, args...))
	return root.ExecuteContext(ctx)
}

// RefusedOffline runs the plugin against a server that does not exist and checks that it fails
// with an error mentioning want, which must come from the flags: no connection was attempted.
func RefusedOffline(t *testing.T, want string, args ...string) {
	t.Helper()
	var out bytes.Buffer
	err := Kairos(context.Background(), &out, "/nonexistent", append([]string{"--server", "https://127.0.0.1:1"}, args...)...)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error mentioning %q", err, want)
	}
	if strings.Contains(err.Error(), "127.0.0.1:1") || strings.Contains(err.Error(), "kubeconfig") {
		t.Errorf("the plugin contacted the cluster before refusing: %v", err)
	}
}

// Run is Kairos with its output collected.
func Run(t *testing.T, kubeconfig string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := Kairos(context.Background(), &out, kubeconfig, args...)
	return out.String(), err
}

var namespaces atomic.Int32

// Setup writes an admin kubeconfig for env and creates a namespace of the test's own.
func Setup(t *testing.T, env *testenv.Env) (kubeconfig, ns string) {
	t.Helper()
	kubeconfig, err := env.WriteAdminKubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return kubeconfig, env.CreateNamespace(t, fmt.Sprintf("plugin-%d", namespaces.Add(1)))
}
