package manager

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/controller/nodeop"
	"github.com/kairos-io/kubectl-kairos/operator/internal/controller/nodeopupgrade"
	"github.com/kairos-io/kubectl-kairos/operator/internal/drain"
	"github.com/kairos-io/kubectl-kairos/operator/internal/jobspec"
)

// addControllers registers every controller of the operator with mgr.
func addControllers(mgr ctrl.Manager, opts Options) error {
	clientset, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return fmt.Errorf("create clientset: %w", err)
	}
	metrics := nodeop.DefaultMetrics()
	drainDone := make(chan event.TypedGenericEvent[*kairosv1alpha1.NodeOp], 128)
	drains := drain.NewRunner(drain.Config{
		Client: clientset,
		Notify: func(owner types.NamespacedName) {
			op := &kairosv1alpha1.NodeOp{}
			op.Namespace, op.Name = owner.Namespace, owner.Name
			drainDone <- event.TypedGenericEvent[*kairosv1alpha1.NodeOp]{Object: op}
		},
		// The operator's own pods (reboot, preflight, Jobs) stay: evicting them would cancel
		// the very operation the drain prepares for.
		SkipPod: func(p *corev1.Pod) bool {
			_, ours := p.Labels[kairosv1alpha1.LabelNodeOp]
			return ours
		},
		EvictionRetryDelay: opts.EvictionRetryDelay,
		Observe:            metrics.ObserveDrain,
	})
	r := &nodeop.Reconciler{
		Client:   mgr.GetClient(),
		Recorder: mgr.GetEventRecorder("kairos-operator"),
		Drains:   drains,
		Settings: jobspec.Settings{DefaultImage: opts.DefaultImage, HelperImage: opts.HelperImage, RebootCommand: opts.RebootCommand},
		Metrics:  metrics,
		Now:      time.Now,
	}
	if err := r.SetupWithManager(mgr, drainDone); err != nil {
		return fmt.Errorf("set up NodeOp controller: %w", err)
	}
	upgrades := &nodeopupgrade.Reconciler{
		Client:    mgr.GetClient(),
		APIReader: mgr.GetAPIReader(),
		Recorder:  mgr.GetEventRecorder("kairos-operator"),
		Now:       time.Now,
	}
	if err := upgrades.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up NodeOpUpgrade controller: %w", err)
	}
	return nil
}
