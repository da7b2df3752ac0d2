// Package logs is `kubectl kairos logs`: the output of an operation's pods, each line prefixed
// with its node, following new pods as a rollout reaches more nodes.
package logs

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kairos-io/kubectl-kairos/plugin/internal/kube"
)

const example = `  # What the upgrade printed on every node so far
  kubectl kairos logs nopu/kairos-upgrade

  # Follow a NodeOp as it reaches more nodes (Ctrl-C stops following, not the operation)
  kubectl kairos logs upgrade-workers -f

  # One node only
  kubectl kairos logs upgrade-workers --node worker-3`

// NewCommand returns the logs command.
func NewCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewOptions(flags, streams)
	cmd := &cobra.Command{
		Use:     "logs NAME|TYPE/NAME",
		Short:   "Print the logs of an operation's pods, prefixed with their node",
		Example: example,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	cmd.ValidArgsFunction = kube.CompleteOperations(flags)
	o.AddFlags(cmd)
	return cmd
}
