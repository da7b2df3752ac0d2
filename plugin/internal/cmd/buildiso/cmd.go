// Package buildiso is `kubectl kairos build-iso`: it writes an OSArtifact (and the Secrets for
// its Dockerfile and cloud-config), can follow the build and copy the artifacts out.
package buildiso

import (
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

const example = `  # Build an ISO from a Kairos image and copy it here once it is built
  kubectl kairos build-iso --image quay.io/kairos/opensuse:leap-15.6-core-amd64-generic-v3.6.0 --output-dir ./dist

  # A raw disk image and an ISO, with a cloud-config baked in
  kubectl kairos build-iso --image quay.io/kairos/ubuntu:24.04-core-amd64-generic-v3.6.0 \
    --formats iso,raw --cloud-config ./cloud-config.yaml --wait

  # Turn a plain Linux image into Kairos from a Dockerfile template
  kubectl kairos build-iso --dockerfile ./Dockerfile --set BASE_IMAGE=ubuntu:24.04 --set VERSION=v3.6.0

  # Print the objects instead of creating them
  kubectl kairos build-iso --base-image ubuntu:24.04 --dry-run=client -o yaml`

// NewCommand returns the build-iso command.
func NewCommand(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *cobra.Command {
	o := NewOptions(flags, streams)
	cmd := &cobra.Command{
		Use:   "build-iso (--image IMAGE | --base-image IMAGE | --dockerfile FILE) [flags]",
		Short: "Build a Kairos ISO or disk image in the cluster",
		Long: `Build Kairos artifacts in the cluster through an OSArtifact.

The source is a Kairos image (--image), a plain Linux image to turn into Kairos (--base-image)
or a Dockerfile template (--dockerfile, values with --set and --values-from). Files given with
--dockerfile and --cloud-config are stored in Secrets owned by the OSArtifact. With --output-dir,
once the build is Ready its artifacts are copied into a local directory.`,
		Example: example,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Complete(); err != nil {
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
