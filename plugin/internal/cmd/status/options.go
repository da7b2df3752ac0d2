package status

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/kairos-io/kubectl-kairos/plugin/internal/kube"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/target"
)

// Options are the flags and arguments of status.
type Options struct {
	configFlags *genericclioptions.ConfigFlags
	streams     genericiooptions.IOStreams

	AllNamespaces bool
	Output        string
	Watch         bool
	kind, name    string
	// Now is the clock for ages and durations; tests fix it.
	Now func() time.Time
}

// NewOptions returns the defaults.
func NewOptions(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *Options {
	return &Options{configFlags: flags, streams: streams, Now: time.Now}
}

// AddFlags registers the command's flags.
func (o *Options) AddFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", o.AllNamespaces, "List operations in every namespace.")
	cmd.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Output format: json or yaml (default: tables).")
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", o.Watch, "Keep showing changes (until the operation finishes, or Ctrl-C).")
}

// Complete reads the optional TYPE/NAME.
func (o *Options) Complete(args []string) error {
	if len(args) == 1 {
		kind, name, err := target.Parse(args[0])
		if err != nil {
			return err
		}
		o.kind, o.name = kind, name
	}
	return nil
}

// Validate refuses bad flags before anything is sent to the cluster.
func (o *Options) Validate() error {
	switch o.Output {
	case "", "json", "yaml":
	default:
		return fmt.Errorf("-o %q: use json or yaml, or leave it out for tables", o.Output)
	}
	if o.Watch && o.Output != "" {
		return fmt.Errorf("--watch shows tables; leave out -o %s", o.Output)
	}
	if o.AllNamespaces && o.name != "" {
		return fmt.Errorf("-A lists every operation; leave it out to show %s", o.name)
	}
	return nil
}

// Run gathers the report, then prints it; with --watch, again on every change.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := kube.Client(o.configFlags)
	if err != nil {
		return err
	}
	if o.AllNamespaces {
		ns = ""
	}
	if !o.Watch {
		r, err := o.gather(ctx, c, ns)
		if err != nil {
			return err
		}
		return o.print(r)
	}
	// Watch first, read second: no change can fall between the two. The watches end with ctx,
	// whichever way watching ends.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watches, err := o.openWatches(ctx, c, ns)
	if err != nil {
		return err
	}
	r, err := o.gather(ctx, c, ns)
	if err != nil {
		for _, w := range watches {
			w.Stop()
		}
		return err
	}
	return o.watch(ctx, c, ns, r, watches)
}

func (o *Options) gather(ctx context.Context, c client.Client, ns string) (*Report, error) {
	if o.name != "" {
		return gatherOne(ctx, c, ns, o.kind, o.name)
	}
	return gatherAll(ctx, c, ns)
}

func (o *Options) print(r *Report) error {
	switch o.Output {
	case "json":
		enc := json.NewEncoder(o.streams.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "yaml":
		data, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, err = o.streams.Out.Write(data)
		return err
	}
	return printText(o.streams.Out, r, o.Now(), o.AllNamespaces)
}
