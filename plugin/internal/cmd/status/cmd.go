// Package status is `kubectl kairos status`: what every Kairos operation is doing, or one
// operation node by node.
package status

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kairos-io/kubectl-kairos/plugin/internal/kube"
)

const example = `  # Every NodeOp, NodeOpUpgrade and OSArtifact in the current namespace
  kubectl kairos status

  # ... in every namespace
  kubectl kairos status -A

  # One operation, node by node
  kubectl kairos status nodeop/upgrade-workers
  kubectl kairos status nopu/kairos-upgrade -o yaml`

// NewCommand returns the status command.
func NewCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewOptions(flags, streams)
	cmd := &cobra.Command{
		Use:     "status [TYPE/NAME]",
		Short:   "Show what Kairos operations are doing",
		Example: example,
		Args:    cobra.MaximumNArgs(1),
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
