// Package completion is `kubectl kairos completion SHELL`.
package completion

import (
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

const example = `  # bash, for the current shell
  source <(kubectl kairos completion bash)

  # zsh
  kubectl kairos completion zsh > "${fpath[1]}/_kubectl-kairos"

  # For "kubectl kairos <TAB>" (kubectl 1.26 and later), put kubectl_complete-kairos, shipped with
  # the plugin, on your PATH next to kubectl-kairos.`

// NewCommand returns the completion command.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:       "completion bash|zsh|fish|powershell",
		Short:     "Print a shell completion script",
		Example:   example,
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(streams.Out, true)
			case "zsh":
				return root.GenZshCompletion(streams.Out)
			case "fish":
				return root.GenFishCompletion(streams.Out, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(streams.Out)
			}
			return fmt.Errorf("unsupported shell %q", args[0])
		},
	}
}
