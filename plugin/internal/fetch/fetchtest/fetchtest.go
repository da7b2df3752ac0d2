// Package fetchtest stands in for pods/exec in tests of artifact copying.
package fetchtest

import (
	"context"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
)

// LocalStreamer runs the fetch pod's commands on this machine, with Dir standing for the
// pod's /artifacts mount. Before each command, Check (when set) may refuse it, for instance
// because the pod is not running.
type LocalStreamer struct {
	Dir   string
	Check func(ctx context.Context, namespace, pod string) error

	mu    sync.Mutex
	calls []string
}

// Stream implements fetch.Streamer.
func (l *LocalStreamer) Stream(ctx context.Context, namespace, pod, _ string, command []string, stdout io.Writer) error {
	if l.Check != nil {
		if err := l.Check(ctx, namespace, pod); err != nil {
			return err
		}
	}
	l.mu.Lock()
	l.calls = append(l.calls, strings.Join(command, " "))
	l.mu.Unlock()
	args := slices.Clone(command)
	for i, a := range args {
		if a == "/artifacts" {
			args[i] = l.Dir
		}
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdout = stdout
	return cmd.Run()
}

// Calls are the commands run so far, each joined with spaces.
func (l *LocalStreamer) Calls() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}
