// Package drain drains nodes in the background the way `kubectl drain` does (through the
// Eviction API, so PodDisruptionBudgets are honoured) and reports when each drain ends, so
// that a reconcile never blocks for the length of a drain.
package drain

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	kubedrain "k8s.io/kubectl/pkg/drain"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// State is where one drain stands.
type State int

const (
	NotStarted State = iota
	Running
	Succeeded
	Failed
)

// Options mean what the flags of `kubectl drain` mean.
type Options struct {
	Force              bool
	IgnoreDaemonSets   bool
	DeleteEmptyDirData bool
	// GracePeriodSeconds for evicted pods; negative uses each pod's own.
	GracePeriodSeconds int
	// Timeout for the whole drain; zero waits as long as it takes.
	Timeout time.Duration
}

// Key names one drain: a node, drained for one owner (a NodeOp, by UID).
type Key struct {
	Owner types.UID
	Node  string
}

type drainRun struct {
	owner   types.NamespacedName
	state   State
	message string
	cancel  context.CancelFunc
	started time.Time
}

// Runner runs drains in goroutines. Its memory is only a cache of work in progress: after an
// operator restart a drain is simply started again, which is harmless since drains are
// idempotent.
type Runner struct {
	cfg Config

	mu   sync.Mutex
	runs map[Key]*drainRun
}

// Config configures a Runner.
type Config struct {
	Client kubernetes.Interface
	// Notify is called when a drain ends, to wake the owner's reconcile.
	Notify func(owner types.NamespacedName)
	// SkipPod reports pods the drain must leave alone (besides what kubectl drain skips).
	SkipPod func(*corev1.Pod) bool
	// EvictionRetryDelay is the pause between refused evictions (default 5s, as kubectl).
	EvictionRetryDelay time.Duration
	// Observe, if set, receives the duration and outcome of every finished drain.
	Observe func(d time.Duration, ok bool)
}

// NewRunner returns a Runner.
func NewRunner(c Config) *Runner {
	if c.EvictionRetryDelay <= 0 {
		c.EvictionRetryDelay = 5 * time.Second
	}
	if c.SkipPod == nil {
		c.SkipPod = func(*corev1.Pod) bool { return false }
	}
	return &Runner{cfg: c, runs: map[Key]*drainRun{}}
}

// Start begins draining key.Node unless a drain for key is running or has ended.
func (r *Runner) Start(ctx context.Context, key Key, owner types.NamespacedName, opts Options) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.runs[key]; ok {
		return
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	run := &drainRun{owner: owner, state: Running, cancel: cancel, started: time.Now()}
	r.runs[key] = run
	go r.drain(ctx, key, run, opts)
}

// State reports the drain of key and, once it failed, why.
func (r *Runner) State(key Key) (State, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	run, ok := r.runs[key]
	if !ok {
		return NotStarted, ""
	}
	return run.state, run.message
}

// Cancel stops the drain of key, if running, and forgets it.
func (r *Runner) Cancel(key Key) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if run, ok := r.runs[key]; ok {
		run.cancel()
		delete(r.runs, key)
	}
}

// Forget cancels and forgets every drain of owner, once it no longer needs them.
func (r *Runner) Forget(owner types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for key, run := range r.runs {
		if key.Owner == owner {
			run.cancel()
			delete(r.runs, key)
		}
	}
}

func (r *Runner) drain(ctx context.Context, key Key, run *drainRun, opts Options) {
	logger := log.FromContext(ctx).WithValues("node", key.Node, "owner", run.owner)
	logger.Info("Draining node")
	blocked := &lastLines{}
	helper := &kubedrain.Helper{
		Ctx:                  ctx,
		Client:               r.cfg.Client,
		Force:                opts.Force,
		GracePeriodSeconds:   opts.GracePeriodSeconds,
		IgnoreAllDaemonSets:  opts.IgnoreDaemonSets,
		DeleteEmptyDirData:   opts.DeleteEmptyDirData,
		Timeout:              opts.Timeout,
		EvictErrorRetryDelay: r.cfg.EvictionRetryDelay,
		Out:                  &lastLines{},
		ErrOut:               blocked,
		AdditionalFilters: []kubedrain.PodFilter{func(pod corev1.Pod) kubedrain.PodDeleteStatus {
			if r.cfg.SkipPod(&pod) {
				return kubedrain.MakePodDeleteStatusSkip()
			}
			return kubedrain.MakePodDeleteStatusOkay()
		}},
		OnPodDeletionOrEvictionFinished: func(pod *corev1.Pod, usingEviction bool, err error) {
			if err == nil {
				logger.V(1).Info("Evicted pod", "pod", types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
			}
		},
	}
	err := kubedrain.RunNodeDrain(helper, key.Node)

	r.mu.Lock()
	if r.runs[key] != run { // cancelled and forgotten meanwhile
		r.mu.Unlock()
		return
	}
	elapsed := time.Since(run.started)
	if err != nil {
		run.state, run.message = Failed, describe(err, blocked.String(), opts.Timeout)
		logger.Info("Drain failed", "error", run.message)
	} else {
		run.state = Succeeded
		logger.Info("Drained node", "duration", elapsed)
	}
	r.mu.Unlock()
	if r.cfg.Observe != nil {
		r.cfg.Observe(elapsed, err == nil)
	}
	if r.cfg.Notify != nil {
		r.cfg.Notify(run.owner)
	}
}

// describe turns a drain error into a status message that says what blocked it.
func describe(err error, refusals string, timeout time.Duration) string {
	msg := err.Error()
	if strings.Contains(msg, "global timeout") || strings.Contains(msg, "context deadline exceeded") {
		msg = fmt.Sprintf("pods still not evicted after %s: %s", timeout, msg)
		if refusals != "" {
			msg += "; last refusal: " + refusals
		}
	}
	const most = 1000
	if len(msg) > most {
		msg = msg[:most] + "..."
	}
	return msg
}

// lastLines keeps the last line written to it: the drain helper reports each refused eviction
// on its own line, and the last one explains a timeout best.
type lastLines struct {
	mu   sync.Mutex
	last string
}

func (l *lastLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := strings.TrimSpace(string(p)); s != "" {
		lines := strings.Split(s, "\n")
		l.last = lines[len(lines)-1]
	}
	return len(p), nil
}

func (l *lastLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}
