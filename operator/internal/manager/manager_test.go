package manager

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(m, &env))
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Options)
		want   string
	}{
		{"defaults", func(*Options) {}, ""},
		{"no probe address", func(o *Options) { o.ProbeAddr = "" }, "--health-probe-bind-address"},
		{"no default image", func(o *Options) { o.DefaultImage = "" }, "--default-image"},
		{"negative lease", func(o *Options) { o.LeaseDuration = -time.Second }, "must not be negative"},
		{"renew after lease", func(o *Options) { o.LeaseDuration, o.RenewDeadline = time.Second, 2*time.Second }, "renew-deadline"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			tc.change(&o)
			err := o.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestManagerServesProbesMetricsAndLeads starts the manager for real and checks what the
// Deployment's probes and Prometheus rely on.
func TestManagerServesProbesMetricsAndLeads(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ns := env.CreateNamespace(t, "operator-system")

	opts := DefaultOptions()
	opts.MetricsAddr, opts.SecureMetrics = freeAddr(t), false
	opts.ProbeAddr = freeAddr(t)
	opts.LeaderElection, opts.LeaderElectionNamespace = true, ns
	mgr, err := New(env.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()

	for _, path := range []string{"/healthz", "/readyz"} {
		body := getEventually(t, "http://"+opts.ProbeAddr+path)
		if !strings.Contains(body, "ok") {
			t.Errorf("%s answered %q", path, body)
		}
	}
	metrics := getEventually(t, "http://"+opts.MetricsAddr+"/metrics")
	for _, name := range []string{"leader_election_master_status", "kairos_nodeop_reboot_duration_seconds"} {
		if !strings.Contains(metrics, name) {
			t.Errorf("metrics lack %s", name)
		}
	}

	select {
	case <-mgr.Elected():
	case <-time.After(60 * time.Second):
		t.Fatal("manager was not elected leader")
	}
	var lease coordinationv1.Lease
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: LeaderElectionID}, &lease); err != nil {
		t.Fatalf("leader Lease: %v", err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Error("leader Lease has no holder")
	}
	// Once leading, the NodeOp controller runs and reports its own metrics.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(getEventually(t, "http://"+opts.MetricsAddr+"/metrics"), `controller_runtime_max_concurrent_reconciles{controller="nodeop"}`) {
		if time.Now().After(deadline) {
			t.Fatal("the NodeOp controller reports no metrics after election")
		}
		time.Sleep(100 * time.Millisecond)
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("manager stopped with %v", err)
	}
}

// getEventually polls until the endpoint answers 200; the servers start asynchronously.
func getEventually(t *testing.T, url string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return string(body)
			}
			err = fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %v", url, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
