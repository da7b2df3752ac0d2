package execonnodes

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/create"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/kube"
)

// Options are the flags and arguments of exec-on-nodes.
type Options struct {
	*create.Options
	configFlags *genericclioptions.ConfigFlags
	streams     genericiooptions.IOStreams

	Selector      string
	Image         string
	Concurrency   int32
	Cordon        bool
	Drain         bool
	Reboot        bool
	StopOnFailure bool
	Preflight     string
	Command       []string

	selector *metav1.LabelSelector
}

// NewOptions returns the defaults.
func NewOptions(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *Options {
	return &Options{Options: create.NewOptions(), configFlags: flags, streams: streams, Concurrency: 1}
}

// AddFlags registers the command's flags.
func (o *Options) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&o.Selector, "selector", "l", o.Selector, "Label selector of the nodes (default: all nodes), e.g. kairos.io/managed=true.")
	f.StringVar(&o.Image, "image", o.Image, "Image to run the command in (default: the operator's, busybox).")
	f.Int32Var(&o.Concurrency, "concurrency", o.Concurrency, "Most nodes at once; 0 means all nodes at once.")
	f.BoolVar(&o.Cordon, "cordon", o.Cordon, "Cordon each node before the command and uncordon it after success.")
	f.BoolVar(&o.Drain, "drain", o.Drain, "Drain each node before the command (PodDisruptionBudgets are honoured); implies --cordon.")
	f.BoolVar(&o.Reboot, "reboot", o.Reboot, "Reboot each node after the command succeeded, and wait until it is back.")
	f.BoolVar(&o.StopOnFailure, "stop-on-failure", o.StopOnFailure, "Start no further node once one failed.")
	f.StringVar(&o.Preflight, "preflight", o.Preflight, "Shell command run on each node first; writing a reason to /dev/termination-log skips the node.")
	o.Options.AddFlags(cmd, "NodeOp")
}

// Complete takes the command after "--".
func (o *Options) Complete(cmd *cobra.Command, args []string) error {
	if dash := cmd.ArgsLenAtDash(); dash > 0 {
		return fmt.Errorf("unexpected arguments %q before --; put the command after --", args[:dash])
	}
	o.Command = args
	if o.Drain {
		o.Cordon = true // as kubectl drain does
	}
	return nil
}

// Validate refuses bad input before anything is sent to the cluster.
func (o *Options) Validate() error {
	var errs []error
	if len(o.Command) == 0 || o.Command[0] == "" {
		errs = append(errs, errors.New("no command: give it after --, e.g. kubectl kairos exec-on-nodes -- cat /host/etc/kairos-release"))
	}
	if o.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("--concurrency %d: use a number of nodes, or 0 for all at once", o.Concurrency))
	}
	if o.Selector != "" {
		sel, err := metav1.ParseToLabelSelector(o.Selector)
		if err != nil {
			errs = append(errs, fmt.Errorf("--selector %q: %w", o.Selector, err))
		}
		o.selector = sel
	}
	if err := o.Options.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// NodeOp is the object the flags describe.
func (o *Options) NodeOp(namespace string) *kairosv1alpha1.NodeOp {
	op := &kairosv1alpha1.NodeOp{ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: namespace}}
	if o.Name == "" {
		op.GenerateName = "exec-"
	}
	op.Spec = kairosv1alpha1.NodeOpSpec{
		NodeSelector:    kairosv1alpha1.NodeSelectorFrom(o.selector),
		Image:           o.Image,
		Command:         o.Command,
		Concurrency:     o.Concurrency,
		Cordon:          o.Cordon,
		RebootOnSuccess: o.Reboot,
		StopOnFailure:   o.StopOnFailure,
	}
	if o.Drain {
		op.Spec.DrainOptions = &kairosv1alpha1.DrainOptions{Enabled: true}
	}
	if o.Preflight != "" {
		op.Spec.Preflight = &kairosv1alpha1.Preflight{Command: []string{"sh", "-c", o.Preflight}}
	}
	return op
}

// Run writes the NodeOp.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := kube.Client(o.configFlags)
	if err != nil {
		return err
	}
	return o.Create(ctx, c, o.NodeOp(ns), "NodeOp", o.streams)
}
