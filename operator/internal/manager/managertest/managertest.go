// Package managertest runs the operator's manager in tests, against the test control plane,
// with settings that make rollouts quick to drive by hand.
package managertest

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kairos-io/kubectl-kairos/operator/internal/manager"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

// Start runs the manager until the test ends (or stop is called). Reboots only echo, evictions
// are retried quickly, and a restart can be simulated in the same process.
func Start(t *testing.T, cfg *rest.Config) (stop func()) {
	t.Helper()
	opts := manager.DefaultOptions()
	opts.MetricsAddr, opts.ProbeAddr = "0", "127.0.0.1:0"
	opts.EvictionRetryDelay = 200 * time.Millisecond
	opts.RebootCommand = "echo pretend-reboot"
	opts.InProcessRestarts = true
	mgr, err := manager.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("operator stopped with %v", err)
		}
	}
	t.Cleanup(stop)
	return stop
}

// RunTests starts the test control plane for a package of operator tests, runs them and stops
// it. The operator's logs are discarded unless KAIROS_TEST_LOG is set.
func RunTests(m *testing.M, env **testenv.Env) int {
	logOut := io.Discard
	if os.Getenv("KAIROS_TEST_LOG") != "" {
		logOut = os.Stderr
	}
	ctrl.SetLogger(zap.New(zap.WriteTo(logOut), zap.UseDevMode(true)))
	return testenv.RunTests(m, env)
}
