// Command operator runs the Kairos operator: the NodeOp, NodeOpUpgrade and OSArtifact
// controllers and the node labeler's DaemonSet.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kairos-io/kubectl-kairos/operator/internal/manager"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "operator:", err)
		os.Exit(1)
	}
}

func run() error {
	opts := manager.DefaultOptions()
	fs := flag.NewFlagSet("operator", flag.ContinueOnError)
	fs.StringVar(&opts.MetricsAddr, "metrics-bind-address", opts.MetricsAddr, `Address of the metrics endpoint ("0" turns it off).`)
	fs.BoolVar(&opts.SecureMetrics, "metrics-secure", opts.SecureMetrics, "Serve metrics over HTTPS, only to callers allowed to get /metrics.")
	fs.StringVar(&opts.ProbeAddr, "health-probe-bind-address", opts.ProbeAddr, "Address of /healthz and /readyz.")
	fs.StringVar(&opts.PprofAddr, "pprof-bind-address", opts.PprofAddr, "Address of Go's profiler (empty: off).")
	fs.BoolVar(&opts.LeaderElection, "leader-elect", opts.LeaderElection, "Keep a single active operator among replicas.")
	fs.StringVar(&opts.LeaderElectionNamespace, "leader-election-namespace", opts.LeaderElectionNamespace, "Namespace of the leader Lease (default: the pod's own).")
	fs.DurationVar(&opts.LeaseDuration, "leader-elect-lease-duration", opts.LeaseDuration, "How long a leader's Lease lasts without renewal (0: library default).")
	fs.DurationVar(&opts.RenewDeadline, "leader-elect-renew-deadline", opts.RenewDeadline, "How long the leader keeps trying to renew before giving up (0: library default).")
	fs.DurationVar(&opts.RetryPeriod, "leader-elect-retry-period", opts.RetryPeriod, "How often candidates try to become leader (0: library default).")
	fs.StringVar(&opts.DefaultImage, "default-image", opts.DefaultImage, "Image for NodeOps that name none.")
	fs.StringVar(&opts.HelperImage, "helper-image", opts.HelperImage, "Image of the operator's own node scripts (needs sh and nsenter).")
	fs.StringVar(&opts.RebootCommand, "reboot-command", opts.RebootCommand, "Shell command the reboot pod runs to reboot its node.")
	fs.DurationVar(&opts.EvictionRetryDelay, "eviction-retry-delay", opts.EvictionRetryDelay, "Pause between evictions refused by a PodDisruptionBudget (0: 5s).")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(fs)
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))

	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("load kubeconfig: %w", err)
	}
	mgr, err := manager.New(cfg, opts)
	if err != nil {
		return err
	}
	ctrl.Log.Info("Starting operator", "metrics", opts.MetricsAddr, "probes", opts.ProbeAddr, "leaderElection", opts.LeaderElection)
	return mgr.Start(ctrl.SetupSignalHandler())
}
