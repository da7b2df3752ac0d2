// Package execonnodes is `kubectl kairos exec-on-nodes`: it writes a NodeOp that runs a command
// on selected nodes.
package execonnodes

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

const example = `  # Show the Kairos release of every Kairos node, two nodes at a time
  kubectl kairos exec-on-nodes --selector kairos.io/managed=true --concurrency 2 -- cat /host/etc/kairos-release

  # Clean up a file on the workers, cordoned and drained, stopping at the first failure
  kubectl kairos exec-on-nodes --selector '!node-role.kubernetes.io/control-plane' --drain --stop-on-failure \
    -- sh -c 'rm -f /host/var/lib/stale.lock'

  # Print the NodeOp instead of creating it
  kubectl kairos exec-on-nodes --dry-run=client -o yaml -- uptime`

// NewCommand returns the exec-on-nodes command.
func NewCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewOptions(flags, streams)
	cmd := &cobra.Command{
		Use:   "exec-on-nodes [flags] -- COMMAND [ARGS...]",
		Short: "Run a command on selected nodes, a few at a time",
		Long: `Run a command on selected nodes through a NodeOp.

The command runs in a privileged container with the node's root filesystem at /host (also in
$HOST_DIR). The operator paces the nodes (--concurrency), can cordon and drain each node first
and reboot it afterwards, and stops at the first failure with --stop-on-failure.`,
		Example: example,
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.AddFlags(cmd)
	return cmd
}
