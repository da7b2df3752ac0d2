// Package manager builds the operator's controller-runtime manager: scheme, leader election,
// health and readiness probes and the metrics endpoint. Controllers register with it in
// their own packages.
package manager

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	apischeme "github.com/kairos-io/kubectl-kairos/api/scheme"
	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/jobspec"
)

// Metrics requests are authenticated and authorized against the API server when served securely.
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// LeaderElectionID names the Lease that keeps a single active operator.
const LeaderElectionID = "kairos-operator.kairos.io"

// Options are the operator's process-level settings, set from flags.
type Options struct {
	// MetricsAddr serves Prometheus metrics; "0" turns the endpoint off.
	MetricsAddr string
	// SecureMetrics serves metrics over HTTPS and only to callers allowed to get /metrics.
	SecureMetrics bool
	// ProbeAddr serves /healthz and /readyz.
	ProbeAddr string
	// PprofAddr serves Go's profiler; empty turns it off.
	PprofAddr string

	// LeaderElection keeps one active replica; the others wait to take over.
	LeaderElection bool
	// LeaderElectionNamespace holds the Lease; empty means the namespace the pod runs in.
	LeaderElectionNamespace string
	// LeaseDuration, RenewDeadline and RetryPeriod tune leader election (zero: library defaults).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration

	// DefaultImage runs NodeOps that name no image.
	DefaultImage string
	// HelperImage runs the operator's own scripts on nodes (reboot sentinel and reboot pod).
	HelperImage string
	// RebootCommand reboots a node from the reboot pod.
	RebootCommand string
	// EvictionRetryDelay is the pause between evictions refused by a PodDisruptionBudget.
	EvictionRetryDelay time.Duration

	// InProcessRestarts allows several managers, one after another, in one process (tests that
	// stop and start the operator); controller names must otherwise be unique per process.
	InProcessRestarts bool
}

// DefaultOptions are the settings used when no flag says otherwise.
func DefaultOptions() Options {
	return Options{
		MetricsAddr:    ":8443",
		SecureMetrics:  true,
		ProbeAddr:      ":8081",
		LeaderElection: false,
		DefaultImage:   jobspec.DefaultSettings().DefaultImage,
		HelperImage:    jobspec.DefaultSettings().HelperImage,
		RebootCommand:  jobspec.DefaultRebootCommand,
	}
}

// Validate refuses settings the operator cannot run with.
func (o Options) Validate() error {
	var errs []error
	if o.ProbeAddr == "" {
		errs = append(errs, errors.New("--health-probe-bind-address must not be empty"))
	}
	if o.DefaultImage == "" {
		errs = append(errs, errors.New("--default-image must not be empty"))
	}
	if o.HelperImage == "" {
		errs = append(errs, errors.New("--helper-image must not be empty"))
	}
	if strings.TrimSpace(o.RebootCommand) == "" {
		errs = append(errs, errors.New("--reboot-command must not be empty"))
	}
	if o.LeaseDuration < 0 || o.RenewDeadline < 0 || o.RetryPeriod < 0 {
		errs = append(errs, errors.New("leader election durations must not be negative"))
	}
	if o.LeaseDuration > 0 && o.RenewDeadline >= o.LeaseDuration {
		errs = append(errs, errors.New("--leader-elect-renew-deadline must be shorter than --leader-elect-lease-duration"))
	}
	return errors.Join(errs...)
}

// New creates the manager with probes and metrics; controllers are added by the caller.
func New(cfg *rest.Config, opts Options) (ctrl.Manager, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	scheme := apischeme.New()
	metrics := metricsserver.Options{BindAddress: opts.MetricsAddr, SecureServing: opts.SecureMetrics}
	if opts.SecureMetrics {
		metrics.FilterProvider = filters.WithAuthenticationAndAuthorization
	}
	// Only what the operator labels is cached: a large cluster's pods would cost memory for
	// nothing. Drains list a node's pods straight from the API server. Reads of pods, Jobs and
	// nodes are not deep-copied: the controller reads them many times per reconcile and only
	// ever changes a node, on a copy.
	ours, err := labels.Parse(kairosv1alpha1.LabelNodeOp)
	if err != nil {
		return nil, err
	}
	mgrOpts := ctrl.Options{
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}:  {Label: ours, UnsafeDisableDeepCopy: ptr.To(true)},
			&batchv1.Job{}: {Label: ours, UnsafeDisableDeepCopy: ptr.To(true)},
			&corev1.Node{}: {UnsafeDisableDeepCopy: ptr.To(true)},
		}},
		Scheme:                        scheme,
		Controller:                    config.Controller{SkipNameValidation: ptr.To(opts.InProcessRestarts)},
		Metrics:                       metrics,
		HealthProbeBindAddress:        opts.ProbeAddr,
		PprofBindAddress:              opts.PprofAddr,
		LeaderElection:                opts.LeaderElection,
		LeaderElectionID:              LeaderElectionID,
		LeaderElectionNamespace:       opts.LeaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
	}
	if opts.LeaseDuration > 0 {
		mgrOpts.LeaseDuration = &opts.LeaseDuration
	}
	if opts.RenewDeadline > 0 {
		mgrOpts.RenewDeadline = &opts.RenewDeadline
	}
	if opts.RetryPeriod > 0 {
		mgrOpts.RetryPeriod = &opts.RetryPeriod
	}
	mgr, err := ctrl.NewManager(cfg, mgrOpts)
	if err != nil {
		return nil, fmt.Errorf("create manager: %w", err)
	}
	if err := addControllers(mgr, opts); err != nil {
		return nil, err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, fmt.Errorf("add health check: %w", err)
	}
	// Ready once the caches have synced, so a rolling update waits for a working replica.
	if err := mgr.AddReadyzCheck("readyz", func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("caches not synced")
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("add ready check: %w", err)
	}
	return mgr, nil
}
