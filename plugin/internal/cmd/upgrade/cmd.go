// Package upgrade is `kubectl kairos upgrade`: it writes a NodeOpUpgrade that upgrades Kairos on
// selected nodes, and can follow it to the end.
package upgrade

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

const example = `  # Upgrade every Kairos node, one at a time, and watch it to the end
  kubectl kairos upgrade --image quay.io/kairos/opensuse:leap-15.6-standard-amd64-generic-v3.4.2-k3sv1.30.11-k3s1 \
    --selector kairos.io/managed=true --wait

  # Three workers at a time, with the upgrade logs, from a private registry
  kubectl kairos upgrade --image registry.example.com/kairos:v3.4.2 --pull-secret regcred \
    --selector '!node-role.kubernetes.io/control-plane' --concurrency 3 --follow

  # Upgrade only the recovery system (no reboot)
  kubectl kairos upgrade --image quay.io/kairos/ubuntu:24.04-core-amd64-generic-v3.4.2 --recovery --no-active

  # Print the NodeOpUpgrade instead of creating it
  kubectl kairos upgrade --image quay.io/kairos/ubuntu:24.04-core-amd64-generic-v3.4.2 --dry-run=client -o yaml`

// NewCommand returns the upgrade command.
func NewCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewOptions(flags, streams)
	cmd := &cobra.Command{
		Use:   "upgrade --image IMAGE [flags]",
		Short: "Upgrade Kairos on selected nodes, a few at a time",
		Long: `Upgrade Kairos on selected nodes through a NodeOpUpgrade.

Each node is cordoned, drained (PodDisruptionBudgets are honoured), upgraded from IMAGE and
rebooted; it counts as upgraded only once it is back on the active system at the new version.
Nodes already at that version are skipped unless --force. By default nodes go one at a time
and the rollout stops at the first failure, leaving the failed node cordoned.`,
		Example: example,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.AddFlags(cmd)
	return cmd
}
