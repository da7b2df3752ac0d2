package upgrade

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/create"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/kube"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/progress"
)

// Options are the flags of upgrade.
type Options struct {
	*create.Options
	create.Targets
	Progress    progress.Options
	configFlags *genericclioptions.ConfigFlags
	streams     genericiooptions.IOStreams

	Image         string
	StopOnFailure bool
	Recovery      bool
	NoActive      bool
	Force         bool
	Debug         bool
	PullSecrets   []string
	ExcludePaths  []string
}

// NewOptions returns the defaults: a canary-style rollout, one node at a time, stopping at the
// first failure.
func NewOptions(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *Options {
	return &Options{Options: create.NewOptions(), configFlags: flags, streams: streams, Targets: create.Targets{Concurrency: 1}, StopOnFailure: true}
}

// AddFlags registers the command's flags.
func (o *Options) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.Image, "image", o.Image, "Kairos image to upgrade to (required), e.g. quay.io/kairos/ubuntu:24.04-standard-amd64-generic-v3.4.2-k3sv1.32.4-k3s1.")
	o.Targets.AddFlags(cmd, "upgraded")
	f.BoolVar(&o.StopOnFailure, "stop-on-failure", o.StopOnFailure, "Upgrade no further node once one failed; --stop-on-failure=false keeps going.")
	f.BoolVar(&o.Recovery, "recovery", o.Recovery, "Also upgrade the recovery system.")
	f.BoolVar(&o.NoActive, "no-active", o.NoActive, "Leave the active system alone (with --recovery: upgrade only the recovery system, no reboot).")
	f.BoolVar(&o.Force, "force", o.Force, "Upgrade nodes that already run the image's version too.")
	f.BoolVar(&o.Debug, "debug", o.Debug, "Run kairos-agent with --debug for verbose upgrade logs.")
	f.StringArrayVar(&o.PullSecrets, "pull-secret", o.PullSecrets, "Secret in the namespace to pull the image with (repeatable).")
	f.StringArrayVar(&o.ExcludePaths, "exclude-path", o.ExcludePaths, "Path kept out of the new system, besides /etc/hostname and /etc/hosts (repeatable).")
	o.Options.AddFlags(cmd, "NodeOpUpgrade")
	o.Progress.AddFlags(cmd, "upgrade")
	_ = cmd.RegisterFlagCompletionFunc("pull-secret", kube.CompleteSecrets(o.configFlags))
}

// Validate refuses bad input before anything is sent to the cluster.
func (o *Options) Validate() error {
	var errs []error
	if strings.TrimSpace(o.Image) == "" {
		errs = append(errs, errors.New("--image is required: the Kairos image to upgrade to, e.g. --image quay.io/kairos/ubuntu:24.04-standard-amd64-generic-v3.4.2"))
	}
	if o.NoActive && !o.Recovery {
		errs = append(errs, errors.New("--no-active without --recovery upgrades nothing; add --recovery, or drop --no-active"))
	}
	if err := o.Targets.Validate(); err != nil {
		errs = append(errs, err)
	}
	for _, s := range o.PullSecrets {
		if msgs := validation.IsDNS1123Subdomain(s); len(msgs) > 0 {
			errs = append(errs, fmt.Errorf("--pull-secret %q is not a Secret name: %s", s, msgs[0]))
		}
	}
	for _, p := range o.ExcludePaths {
		if !path.IsAbs(p) {
			errs = append(errs, fmt.Errorf("--exclude-path %q: give an absolute path, such as /var/lib/mydata", p))
		}
	}
	if err := o.Options.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.Progress.Validate(o.DryRun); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// NodeOpUpgrade is the object the flags describe.
func (o *Options) NodeOpUpgrade(namespace string) *kairosv1alpha1.NodeOpUpgrade {
	u := &kairosv1alpha1.NodeOpUpgrade{ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: namespace}}
	if o.Name == "" {
		u.GenerateName = create.NamePrefixFromImage("upgrade", o.Image)
	}
	active, recovery := !o.NoActive, o.Recovery
	u.Spec = kairosv1alpha1.NodeOpUpgradeSpec{
		Image:           o.Image,
		NodeSelector:    o.Targets.NodeSelector(),
		Concurrency:     o.Concurrency,
		StopOnFailure:   o.StopOnFailure,
		UpgradeActive:   &active,
		UpgradeRecovery: &recovery,
		Force:           o.Force,
		Debug:           o.Debug,
		ExcludePaths:    o.ExcludePaths,
	}
	for _, s := range o.PullSecrets {
		u.Spec.ImagePullSecrets = append(u.Spec.ImagePullSecrets, corev1.LocalObjectReference{Name: s})
	}
	return u
}

// Run writes the NodeOpUpgrade and, with --wait, follows it.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := kube.Client(o.configFlags)
	if err != nil {
		return err
	}
	u := o.NodeOpUpgrade(ns)
	if err := o.Create(ctx, c, u, "NodeOpUpgrade", o.streams); err != nil {
		return err
	}
	return o.Progress.Run(ctx, c, o.configFlags, o.streams, ns, "NodeOpUpgrade", u.Name)
}
