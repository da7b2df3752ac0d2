package jobspec

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// fakeHost is a temporary directory standing in for a node's root filesystem.
type fakeHost struct {
	root, rebootLog string
}

func newFakeHost(t *testing.T) fakeHost {
	dir := t.TempDir()
	return fakeHost{root: filepath.Join(dir, "host"), rebootLog: filepath.Join(dir, "reboots.log")}
}

func (h fakeHost) sentinelDir() string {
	return filepath.Join(h.root, kairosv1alpha1.RebootSentinelDir)
}

func (h fakeHost) reboots(t *testing.T) int {
	data, err := os.ReadFile(h.rebootLog)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "reboot\n")
}

// runSentinel runs the Job's sentinel container script against the fake host.
func (h fakeHost) runSentinel(t *testing.T, job string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", sentinelScript)
	cmd.Env = append(os.Environ(), "HOST_DIR="+h.root, "JOB_NAME="+job)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sentinel script: %v\n%s", err, out)
	}
}

// startRebootWait starts the reboot pod's script with a fake reboot command that only logs.
func (h fakeHost) startRebootWait(t *testing.T, job string) (done <-chan error, stop func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	cmd := exec.CommandContext(ctx, "sh", "-c", rebootWaitScript)
	cmd.Env = append(os.Environ(),
		"SENTINEL_DIR="+h.sentinelDir(), "JOB_NAME="+job, "POLL_SECONDS=0.05",
		`REBOOT_COMMAND=echo reboot >>"$REBOOT_LOG"`, "REBOOT_LOG="+h.rebootLog)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan error, 1)
	go func() { ch <- cmd.Wait() }()
	return ch, cancel
}

func sentinels(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestSentinelScriptWritesJobNameAndTime(t *testing.T) {
	h := newFakeHost(t)
	before := time.Now().Unix()
	h.runSentinel(t, "op-node-1-abcd1234")
	names := sentinels(t, h.sentinelDir())
	if len(names) != 1 || !strings.HasPrefix(names[0], "op-node-1-abcd1234-") {
		t.Fatalf("sentinels = %v, want one op-node-1-abcd1234-<time>", names)
	}
	var ts int64
	for _, c := range strings.TrimPrefix(names[0], "op-node-1-abcd1234-") {
		if c < '0' || c > '9' {
			t.Fatalf("sentinel %q does not end in a unix time", names[0])
		}
		ts = ts*10 + int64(c-'0')
	}
	if ts < before || ts > time.Now().Unix()+1 {
		t.Errorf("sentinel time %d is not now (%d)", ts, before)
	}
}

func TestRebootWaitRebootsOnceAfterItsOwnSentinel(t *testing.T) {
	h := newFakeHost(t)
	const job = "op-node-1-abcd1234"
	if err := os.MkdirAll(h.sentinelDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	// Sentinels of other Jobs, including one whose name starts like ours, are not ours.
	for _, other := range []string{"op-node-2-ffff0000-1700000000", job + "-x-1700000000", job + "-"} {
		if err := os.WriteFile(filepath.Join(h.sentinelDir(), other), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	done, stop := h.startRebootWait(t, job)
	defer stop()
	select {
	case err := <-done:
		t.Fatalf("rebooted (or exited: %v) without its sentinel", err)
	case <-time.After(500 * time.Millisecond):
	}
	if n := h.reboots(t); n != 0 {
		t.Fatalf("%d reboots before the sentinel", n)
	}

	h.runSentinel(t, job)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("reboot-wait exited with %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no reboot after the sentinel appeared")
	}
	if n := h.reboots(t); n != 1 {
		t.Fatalf("%d reboots, want 1", n)
	}
	for _, name := range sentinels(t, h.sentinelDir()) {
		if strings.HasPrefix(name, job+"-1") {
			t.Errorf("own sentinel %s was not removed", name)
		}
	}
	if got := len(sentinels(t, h.sentinelDir())); got != 3 {
		t.Errorf("other Jobs' sentinels were touched: %v", sentinels(t, h.sentinelDir()))
	}

	// After the reboot the pod starts again: it must not reboot a second time.
	done, stop2 := h.startRebootWait(t, job)
	defer stop2()
	select {
	case err := <-done:
		t.Fatalf("second start exited (%v); want it to wait", err)
	case <-time.After(500 * time.Millisecond):
	}
	if n := h.reboots(t); n != 1 {
		t.Fatalf("%d reboots after the second start, want 1", n)
	}
}
