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
	"github.com/kairos-io/kubectl-kairos/plugin/internal/progress"
)

// Options are the flags and arguments of exec-on-nodes.
type Options struct {
	*create.Options
	create.Targets
	Progress    progress.Options
	configFlags *genericclioptions.ConfigFlags
	streams     genericiooptions.IOStreams

	Image         string
	Cordon        bool
	Drain         bool
	Reboot        bool
	StopOnFailure bool
	Preflight     string
	Command       []string
}

// NewOptions returns the defaults.
func NewOptions(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *Options {
	return &Options{Options: create.NewOptions(), configFlags: flags, streams: streams, Targets: create.Targets{Concurrency: 1}}
}

// AddFlags registers the command's flags.
func (o *Options) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	o.Targets.AddFlags(cmd, "worked on")
	f.StringVar(&o.Image, "image", o.Image, "Image to run the command in (default: the operator's, busybox).")
	f.BoolVar(&o.Cordon, "cordon", o.Cordon, "Cordon each node before the command and uncordon it after success.")
	f.BoolVar(&o.Drain, "drain", o.Drain, "Drain each node before the command (PodDisruptionBudgets are honoured); implies --cordon.")
	f.BoolVar(&o.Reboot, "reboot", o.Reboot, "Reboot each node after the command succeeded, and wait until it is back.")
	f.BoolVar(&o.StopOnFailure, "stop-on-failure", o.StopOnFailure, "Start no further node once one failed.")
	f.StringVar(&o.Preflight, "preflight", o.Preflight, "Shell command run on each node first; writing a reason to /dev/termination-log skips the node.")
	o.Options.AddFlags(cmd, "NodeOp")
	o.Progress.AddFlags(cmd, "operation")
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
	if err := o.Targets.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.Options.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.Progress.Validate(o.DryRun); err != nil {
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
		NodeSelector:    o.Targets.NodeSelector(),
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
	op := o.NodeOp(ns)
	if err := o.Create(ctx, c, op, "NodeOp", o.streams); err != nil {
		return err
	}
	return o.Progress.Run(ctx, c, o.configFlags, o.streams, ns, "NodeOp", op.Name)
}
