// Package testenv starts a real kube-apiserver and etcd (controller-runtime's envtest) with the
// project's CRDs installed, for the API test tier. The binaries come from `make testbin`, which
// builds them from the Go module proxy at pinned versions; `make test` points KUBEBUILDER_ASSETS
// at them.
package testenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	apischeme "github.com/kairos-io/kubectl-kairos/api/scheme"
)

// Env is a running API server with the project's CRDs.
type Env struct {
	Config *rest.Config
	Client client.Client

	env *envtest.Environment
}

// RepoRoot is the root of the work tree, found from this file's location so that tests in any
// package can reach config/.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Assets is the directory of the test control plane's binaries (etcd, kube-apiserver, kubectl...).
func Assets() string { return os.Getenv("KUBEBUILDER_ASSETS") }

// Start starts etcd and kube-apiserver and installs the CRDs from config/crd/bases.
func Start() (*Env, error) { return start(true) }

// StartWithoutCRDs starts a control plane without the project's CRDs: a cluster where the
// operator is not installed.
func StartWithoutCRDs() (*Env, error) { return start(false) }

func start(withCRDs bool) (*Env, error) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		return nil, errors.New("KUBEBUILDER_ASSETS is not set: run the tests with `make test`, " +
			"or run `make testbin` and export KUBEBUILDER_ASSETS to the directory it prints")
	}
	for _, bin := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(assets, bin)); err != nil {
			return nil, fmt.Errorf("test control plane incomplete (%w): run `make testbin`", err)
		}
	}
	scheme := apischeme.New()
	env := &envtest.Environment{BinaryAssetsDirectory: assets, Scheme: scheme}
	if withCRDs {
		env.CRDDirectoryPaths = []string{filepath.Join(RepoRoot(), "config", "crd", "bases")}
		env.ErrorIfCRDPathMissing = true
	}
	cfg, err := env.Start()
	if err != nil {
		// Start may fail after launching etcd and kube-apiserver (a CRD refused, say): stop
		// them, or they outlive the test run.
		_ = env.Stop()
		return nil, fmt.Errorf("start test API server: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("create client: %w", err)
	}
	return &Env{Config: cfg, Client: c, env: env}, nil
}

// Stop stops the API server and etcd.
func (e *Env) Stop() error {
	return e.env.Stop()
}

// RunTests is a package's TestMain body: it starts the API server into *env, runs the tests
// and stops the server, returning the exit code.
func RunTests(m *testing.M, env **Env) int {
	started, err := Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	*env = started
	code := m.Run()
	if err := started.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stop test API server:", err)
	}
	return code
}

// CreateNamespace creates the namespace name for a test (failing the test if it cannot) and
// returns the name, so tests with objects of the same name never meet.
func (e *Env) CreateNamespace(t testing.TB, name string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := e.Client.Create(context.Background(), ns); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	return name
}

var uniqueNames atomic.Int64

// UniqueName is prefix with a number no other call in this process returned, so that tests
// repeated with -count never meet objects of an earlier run.
func UniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, uniqueNames.Add(1))
}
