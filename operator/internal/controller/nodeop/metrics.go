package nodeop

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// Metrics are the NodeOp controller's Prometheus metrics.
type Metrics struct {
	inFlight      *prometheus.GaugeVec
	nodeDuration  *prometheus.HistogramVec
	failures      *prometheus.CounterVec
	drainDuration *prometheus.HistogramVec
	rebootWait    prometheus.Histogram
}

// durations from a second to a few hours: a node's operation includes drains and reboots.
var durationBuckets = prometheus.ExponentialBuckets(1, 2, 14)

// DefaultMetrics are registered once per process with the manager's registry, which its metrics
// endpoint serves.
var DefaultMetrics = sync.OnceValue(func() *Metrics { return NewMetrics(ctrlmetrics.Registry) })

// NewMetrics creates the metrics and registers them with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kairos_nodeop_nodes_in_flight",
			Help: "Nodes a NodeOp is working on right now (preflight, cordon, drain, Job or reboot).",
		}, []string{"namespace", "nodeop"}),
		nodeDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kairos_nodeop_node_duration_seconds",
			Help:    "Time from starting a node to its completion or failure.",
			Buckets: durationBuckets,
		}, []string{"result"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kairos_nodeop_node_failures_total",
			Help: "Nodes on which a NodeOp failed.",
		}, []string{"namespace", "nodeop"}),
		drainDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kairos_nodeop_drain_duration_seconds",
			Help:    "Time a node drain took.",
			Buckets: durationBuckets,
		}, []string{"result"}),
		rebootWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "kairos_nodeop_reboot_duration_seconds",
			Help:    "Time from a node's Job succeeding to the node being back, rebooted and Ready.",
			Buckets: durationBuckets,
		}),
	}
	reg.MustRegister(m.inFlight, m.nodeDuration, m.failures, m.drainDuration, m.rebootWait)
	return m
}

func (m *Metrics) setInFlight(op *kairosv1alpha1.NodeOp, n int32) {
	m.inFlight.WithLabelValues(op.Namespace, op.Name).Set(float64(n))
}

// forget drops the series of a NodeOp that is gone.
func (m *Metrics) forget(namespace, name string) {
	m.inFlight.DeleteLabelValues(namespace, name)
	m.failures.DeleteLabelValues(namespace, name)
}

func (m *Metrics) observeNodeDone(op *kairosv1alpha1.NodeOp, st kairosv1alpha1.NodeStatus, result string) {
	if result == "failed" {
		m.failures.WithLabelValues(op.Namespace, op.Name).Inc()
	}
	if st.StartedAt != nil && st.FinishedAt != nil {
		m.nodeDuration.WithLabelValues(result).Observe(st.FinishedAt.Sub(st.StartedAt.Time).Seconds())
	}
}

func (m *Metrics) observeReboot(jobSucceededAt, now time.Time) {
	if !jobSucceededAt.IsZero() {
		m.rebootWait.Observe(now.Sub(jobSucceededAt).Seconds())
	}
}

// ObserveDrain records a finished drain.
func (m *Metrics) ObserveDrain(d time.Duration, ok bool) {
	result := "succeeded"
	if !ok {
		result = "failed"
	}
	m.drainDuration.WithLabelValues(result).Observe(d.Seconds())
}
