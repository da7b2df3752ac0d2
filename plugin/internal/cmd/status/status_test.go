package status

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/plugintest"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

var (
	env    *testenv.Env
	update = flag.Bool("update", false, "rewrite the golden files")
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(testenv.RunTests(m, &env))
}

// fixture creates operations with known statuses and returns a clock 10m30s after they were
// created (ages print as "10m" whatever second they were created in).
func fixture(t *testing.T, ns string) (kubeconfig string, now time.Time) {
	t.Helper()
	ctx := context.Background()
	env.CreateNamespace(t, ns)
	start := metav1.NewTime(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	at := func(d time.Duration) *metav1.Time { t := metav1.NewTime(start.Add(d)); return &t }

	rolling := &kairosv1alpha1.NodeOp{ObjectMeta: metav1.ObjectMeta{Name: "upgrade-workers", Namespace: ns}}
	rolling.Spec.Command = []string{"true"}
	broken := &kairosv1alpha1.NodeOp{ObjectMeta: metav1.ObjectMeta{Name: "broken", Namespace: ns}}
	broken.Spec.Command = []string{"false"}
	iso := &kairosv1alpha2.OSArtifact{ObjectMeta: metav1.ObjectMeta{Name: "iso", Namespace: ns}}
	iso.Spec.ImageName, iso.Spec.ISO = "quay.io/kairos/opensuse:leap-15.6-core-amd64-generic-v3.6.0", true
	for _, obj := range []client.Object{rolling, broken, iso} {
		if err := env.Client.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}

	rolling.Status.Phase = kairosv1alpha1.NodeOpRunning
	rolling.Status.Message = "1 in flight, 1 of 3 done"
	rolling.Status.NodeCounts = kairosv1alpha1.NodeCounts{TotalNodes: 3, CompletedNodes: 1, RunningNodes: 1, Progress: "1/3"}
	rolling.Status.NodeStatuses = map[string]kairosv1alpha1.NodeStatus{
		"worker-1": {Phase: kairosv1alpha1.NodeCompleted, RebootStatus: kairosv1alpha1.RebootCompleted, JobName: "upgrade-workers-worker-1-1a2b3c4d",
			Message: "Completed", StartedAt: at(0), FinishedAt: at(4*time.Minute + 10*time.Second)},
		"worker-2": {Phase: kairosv1alpha1.NodeRunning, RebootStatus: kairosv1alpha1.RebootPending, JobName: "upgrade-workers-worker-2-5e6f7a8b",
			Message: "Waiting for the node to reboot", StartedAt: at(4*time.Minute + 10*time.Second)},
		"worker-3": {Phase: kairosv1alpha1.NodePending, Message: "Waiting to start"},
	}
	broken.Status.Phase = kairosv1alpha1.NodeOpFailed
	broken.Status.Message = "1 of 2 nodes failed: worker-2"
	broken.Status.NodeCounts = kairosv1alpha1.NodeCounts{TotalNodes: 2, CompletedNodes: 1, FailedNodes: 1, Progress: "2/2"}
	iso.Status.Phase = kairosv1alpha2.ArtifactReady
	for _, obj := range []client.Object{rolling, broken, iso} {
		if err := env.Client.Status().Update(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	kubeconfig, err := env.WriteAdminKubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return kubeconfig, rolling.CreationTimestamp.Add(10*time.Minute + 30*time.Second)
}

func runStatus(t *testing.T, kubeconfig, ns string, now time.Time, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	o := NewOptions(plugintest.Flags(kubeconfig, ns), genericiooptions.IOStreams{Out: &out, ErrOut: &out})
	o.Now = func() time.Time { return now }
	var rest []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-o":
			o.Output = args[i+1]
			i++
		case "-A":
			o.AllNamespaces = true
		default:
			rest = append(rest, args[i])
		}
	}
	if err := o.Complete(rest); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := o.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func TestStatusListsOperations(t *testing.T) {
	kubeconfig, now := fixture(t, "status-list")
	golden(t, "list.golden", runStatus(t, kubeconfig, "status-list", now))
}

func TestStatusDetailsOneOperation(t *testing.T) {
	kubeconfig, _ := fixture(t, "status-detail")
	// Durations: worker-1 took 4m10s; worker-2 has run 6m so far.
	now := time.Date(2026, 11, 22, 10, 10, 10, 0, time.UTC)
	golden(t, "detail.golden", runStatus(t, kubeconfig, "status-detail", now, "nop/upgrade-workers"))
}

func TestStatusJSONIsTheReport(t *testing.T) {
	kubeconfig, now := fixture(t, "status-json")
	var r Report
	if err := json.Unmarshal([]byte(runStatus(t, kubeconfig, "status-json", now, "-o", "json")), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Operations) != 3 || r.Operations[0].Kind != "NodeOp" || r.Operations[0].Name != "broken" || r.Operations[0].Failed != 1 {
		t.Errorf("report %+v", r.Operations)
	}
	all := runStatus(t, kubeconfig, "default", now, "-A")
	if !strings.Contains(all, "NAMESPACE") || !strings.Contains(all, "status-json") {
		t.Errorf("-A output:\n%s", all)
	}
}

func TestStatusRefusesBadInput(t *testing.T) {
	o := NewOptions(genericclioptions.NewConfigFlags(true), genericiooptions.IOStreams{})
	if err := o.Complete([]string{"deployment/web"}); err == nil || !strings.Contains(err.Error(), "TYPE/NAME") {
		t.Errorf("unknown type: %v", err)
	}
	o.Output = "wide"
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "json or yaml") {
		t.Errorf("bad output: %v", err)
	}
}

func TestStatusWatchFollowsUntilTheOperationFinishes(t *testing.T) {
	ctx := context.Background()
	kubeconfig, now := fixture(t, "status-watch")
	out := &plugintest.Buffer{}
	o := NewOptions(plugintest.Flags(kubeconfig, "status-watch"), genericiooptions.IOStreams{Out: out, ErrOut: out})
	o.Now, o.Watch = func() time.Time { return now }, true
	if err := o.Complete([]string{"nodeop/upgrade-workers"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- o.Run(ctx) }()

	out.WaitFor(t, "1/3 nodes done")

	var op kairosv1alpha1.NodeOp
	setStatus := func(phase kairosv1alpha1.NodeOpPhase, progress string) {
		t.Helper()
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: "status-watch", Name: "upgrade-workers"}, &op); err != nil {
			t.Fatal(err)
		}
		op.Status.Phase, op.Status.Progress = phase, progress
		if err := env.Client.Status().Update(ctx, &op); err != nil {
			t.Fatal(err)
		}
	}
	setStatus(kairosv1alpha1.NodeOpRunning, "2/3")
	out.WaitFor(t, "2/3 nodes done")
	setStatus(kairosv1alpha1.NodeOpCompleted, "3/3")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("watch did not end when the operation completed")
	}
	if !strings.Contains(out.String(), "Completed, 3/3 nodes done") {
		t.Errorf("last view:\n%s", out.String())
	}
	if strings.Contains(out.String(), clearScreen) {
		t.Error("cleared the screen though the output is not a terminal")
	}
}

func TestStatusWatchStopsOnCtrlC(t *testing.T) {
	kubeconfig, now := fixture(t, "status-cancel")
	out := &plugintest.Buffer{}
	o := NewOptions(plugintest.Flags(kubeconfig, "status-cancel"), genericiooptions.IOStreams{Out: out, ErrOut: out})
	o.Now, o.Watch = func() time.Time { return now }, true
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- o.Run(ctx) }()
	out.WaitFor(t, "OPERATION")
	cancel() // what Ctrl-C does through signal.NotifyContext in main
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("watch ended with %v, want a clean stop", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("watch did not stop")
	}
}
