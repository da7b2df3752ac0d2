// Package cmd assembles `kubectl kairos` from one package per verb.
package cmd

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/buildiso"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/completion"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/execonnodes"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/logs"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/status"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/upgrade"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/version"
)

// NewRootCommand returns `kubectl kairos` with every verb and kubectl's connection flags
// (--kubeconfig, --context, -n, --as, ...).
func NewRootCommand(streams genericiooptions.IOStreams) *cobra.Command {
	flags := genericclioptions.NewConfigFlags(true)
	root := &cobra.Command{
		Use:         "kairos",
		Annotations: map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl kairos"},
		Short:       "Day-2 operations for Kairos clusters",
		Long: `kubectl kairos runs operations on the nodes of a Kairos cluster through the Kairos operator:
it writes the operator's objects for you and follows them.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	flags.AddFlags(root.PersistentFlags())
	root.AddCommand(
		upgrade.NewCommand(flags, streams),
		execonnodes.NewCommand(flags, streams),
		buildiso.NewCommand(flags, streams),
		status.NewCommand(flags, streams),
		logs.NewCommand(flags, streams),
		version.NewCommand(streams),
		completion.NewCommand(streams),
	)
	// cobra's own completion command would show "kubectl kairos" scripts for the wrong binary.
	root.CompletionOptions.DisableDefaultCmd = true
	return root
}
