// Package version is `kubectl kairos version`.
package version

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// Version is set at build time (-ldflags -X .../version.Version=v1.2.3); otherwise the module
// version Go recorded, or "dev".
var Version = ""

// String is the plugin's version.
func String() string {
	if Version != "" {
		return Version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

// NewCommand returns the version command.
func NewCommand(streams genericiooptions.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the plugin's version",
		Example: "  kubectl kairos version",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(streams.Out, "kubectl-kairos %s\n", String())
			return err
		},
	}
}
