// Package testenv starts a real kube-apiserver and etcd (controller-runtime's envtest) with the
// project's CRDs installed, for the API test tier. The binaries come from `make testbin`, which
// builds them from the Go module proxy at pinned versions; `make test` points KUBEBUILDER_ASSETS
// at them.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
)

// Env is a running API server with the project's CRDs.
type Env struct {
	Config *rest.Config
	Client client.Client
	Scheme *k8sruntime.Scheme

	env *envtest.Environment
}

// NewScheme returns a scheme with the built-in Kubernetes types and the project's APIs.
func NewScheme() *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	for _, add := range []func(*k8sruntime.Scheme) error{
		clientgoscheme.AddToScheme, kairosv1alpha1.AddToScheme, kairosv1alpha2.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err) // only a programming error gets here
		}
	}
	return s
}

// Codecs decodes YAML and JSON into the project's types.
func Codecs(s *k8sruntime.Scheme) serializer.CodecFactory {
	return serializer.NewCodecFactory(s, serializer.EnableStrict)
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
	scheme := NewScheme()
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
	return &Env{Config: cfg, Client: c, Scheme: scheme, env: env}, nil
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
