// Package progress is --wait and --follow of the plugin's create commands: after writing an
// operation, follow it live until it finishes, optionally with its pods' logs, and exit
// non-zero when it failed.
package progress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/logs"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/status"
)

// resync re-reads the operation even without a change seen: a change made before the watch
// opened is caught, and running durations stay fresh.
const resync = 10 * time.Second

// retryDelay spaces reads of the operation after a passing failure.
const retryDelay = 2 * time.Second

// logGrace is how long --follow keeps streaming after the operation finished.
const logGrace = time.Second

// Options are the --wait, --follow and --no-color flags.
type Options struct {
	Wait    bool
	Follow  bool
	NoColor bool
}

// AddFlags registers the flags; what names the object, such as "upgrade".
func (o *Options) AddFlags(cmd *cobra.Command, what string) {
	cmd.Flags().BoolVar(&o.Wait, "wait", o.Wait, "Show the "+what+"'s progress until it finishes; exit non-zero if it failed (Ctrl-C stops watching, not the "+what+").")
	cmd.Flags().BoolVar(&o.Follow, "follow", o.Follow, "With --wait, also print the logs of its pods as they run; implies --wait.")
	cmd.Flags().BoolVar(&o.NoColor, "no-color", o.NoColor, "No colours in the progress (also when NO_COLOR is set or the output is not a terminal).")
}

// Validate refuses --wait and --follow when nothing will be created to follow.
func (o *Options) Validate(dryRun string) error {
	if o.Follow {
		o.Wait = true
	}
	if o.Wait && dryRun != "" && dryRun != "none" {
		return fmt.Errorf("--wait and --follow follow a created object; leave them out with --dry-run=%s", dryRun)
	}
	return nil
}

// Run follows the operation kind/name until it finishes or ctx ends. It returns an error when
// the operation failed; an interrupted wait leaves the operation running and is no error.
func (o *Options) Run(ctx context.Context, c client.WithWatch, flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, ns, kind, name string) error {
	if !o.Wait {
		return nil
	}
	terminal := status.IsTerminal(streams.Out)
	out := &lineWriter{w: streams.Out}
	v := view{out: out, live: terminal && !o.Follow, color: terminal && !o.NoColor && os.Getenv("NO_COLOR") == ""}

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait() // nothing writes once Run returned
	}()
	changes := make(chan struct{}, 1)
	errs := make(chan error, 2)
	wg.Go(func() { errs <- status.Changes(ctx, c, ns, kind, name, changes) })
	if o.Follow {
		logStreams := streams
		logStreams.Out = out
		wg.Go(func() { errs <- logs.Following(flags, logStreams, kind, name).Run(ctx) })
	}

	for {
		d, err := status.Describe(ctx, c, ns, kind, name)
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return v.interrupted(kind, name)
			case !transient(err):
				return err
			}
			// An API server restart must not end a wait of hours with a failure exit.
			fmt.Fprintf(out, "(reading %s %s failed: %v; retrying)\n", kind, name, err)
			select {
			case <-ctx.Done():
				return v.interrupted(kind, name)
			case <-time.After(retryDelay):
			}
			continue
		}
		v.show(d)
		if status.IsFinished(d.Phase) {
			if o.Follow {
				// The last pods' final lines may still be on their way.
				time.Sleep(logGrace)
			}
			return v.finish(d)
		}
		select {
		case <-ctx.Done():
			return v.interrupted(kind, name)
		case err := <-errs:
			if err != nil && ctx.Err() == nil {
				return err
			}
		case <-changes:
		case <-time.After(resync):
		}
	}
}

// transient tells failures worth retrying (the API server or the network briefly away) from
// answers that will not change (not found, forbidden, no such API).
func transient(err error) bool {
	var apiErr apierrors.APIStatus
	if errors.As(err, &apiErr) {
		return apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
			apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err)
	}
	var netErr net.Error
	return errors.As(err, &netErr) || utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err)
}

// view renders progress: one redrawn line on a terminal, else a line per change.
type view struct {
	out   io.Writer
	live  bool
	color bool
	last  string
}

func (v *view) show(d *status.Detail) {
	line := summary(d, v.color)
	if line == v.last {
		return
	}
	v.last = line
	if v.live {
		fmt.Fprint(v.out, "\r\x1b[K"+line)
		return
	}
	fmt.Fprintln(v.out, line)
}

// finish ends the live line and says how it ended, naming failed nodes.
func (v *view) finish(d *status.Detail) error {
	if v.live {
		fmt.Fprintln(v.out)
	}
	if d.Phase == "Completed" || d.Phase == "Ready" {
		return nil
	}
	var failed []string
	for _, n := range d.Nodes {
		if n.Phase == "Failed" {
			failed = append(failed, fmt.Sprintf("  %s: %s", n.Node, n.Message))
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(v.out, "Failed nodes:\n%s\n", strings.Join(failed, "\n"))
	}
	return fmt.Errorf("%s %s failed: %s", d.Kind, d.Name, d.Message)
}

func (v *view) interrupted(kind, name string) error {
	if v.live {
		fmt.Fprintln(v.out)
	}
	fmt.Fprintf(v.out, "Stopped watching; %s %s goes on. Follow it with: kubectl kairos status %s/%s -w\n", kind, name, strings.ToLower(kind), name)
	return nil
}

// summary is one line: phase, counts and what the nodes in flight are doing.
func summary(d *status.Detail, color bool) string {
	var running, done, failed []status.NodeRow
	for _, n := range d.Nodes {
		switch n.Phase {
		case "Completed":
			done = append(done, n)
		case "Failed":
			failed = append(failed, n)
		case "Preflight", "Running":
			running = append(running, n)
		}
	}
	phase := d.Phase
	if color {
		phase = colorFor(d.Phase) + phase + "\x1b[0m"
	}
	line := fmt.Sprintf("%s/%s %s", strings.ToLower(d.Kind), d.Name, phase)
	if len(d.Nodes) > 0 {
		line += fmt.Sprintf(": %d/%d nodes done, %d running, %d failed", len(done)+len(failed), len(d.Nodes), len(running), len(failed))
	} else if d.Message != "" {
		line += ": " + d.Message
	}
	sort.Slice(running, func(i, j int) bool { return running[i].Node < running[j].Node })
	const shown = 3
	var doing []string
	for i, n := range running {
		if i == shown {
			doing = append(doing, fmt.Sprintf("+%d more", len(running)-shown))
			break
		}
		doing = append(doing, n.Node+": "+n.Message)
	}
	if len(doing) > 0 {
		line += " [" + strings.Join(doing, "; ") + "]"
	}
	return line
}

func colorFor(phase string) string {
	switch phase {
	case "Completed", "Ready":
		return "\x1b[32m"
	case "Failed", "Error":
		return "\x1b[31m"
	}
	return "\x1b[33m"
}

// lineWriter makes every Write whole, so that log lines and progress lines never interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
