// Package create is what the plugin's create commands share: --name, --dry-run and -o, and
// writing the object the way kubectl create does.
package create

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/printers"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/kairos-io/kubectl-kairos/plugin/internal/kube"
)

// Dry-run modes, as in kubectl.
const (
	DryRunNone   = "none"
	DryRunClient = "client"
	DryRunServer = "server"
)

// Options are the flags every create command has.
type Options struct {
	Name       string
	DryRun     string
	PrintFlags *genericclioptions.PrintFlags

	// printer is kept across objects so that YAML output separates them with "---".
	printer printers.ResourcePrinter
}

// NewOptions returns Options whose default output is kubectl's "<kind>/<name> created".
func NewOptions() *Options {
	return &Options{DryRun: DryRunNone, PrintFlags: genericclioptions.NewPrintFlags("created").WithTypeSetter(kube.Scheme)}
}

// AddFlags registers --name, --dry-run and -o.
func (o *Options) AddFlags(cmd *cobra.Command, what string) {
	cmd.Flags().StringVar(&o.Name, "name", o.Name, "Name of the "+what+" (default: generated).")
	cmd.Flags().StringVar(&o.DryRun, "dry-run", o.DryRun, `"client" prints the object without sending it; "server" has the API server check it without saving it; "none" creates it.`)
	cmd.Flags().Lookup("dry-run").NoOptDefVal = DryRunClient
	o.PrintFlags.AddFlags(cmd)
}

// Validate checks the shared flags.
func (o *Options) Validate() error {
	switch o.DryRun {
	case DryRunNone, DryRunClient, DryRunServer:
	default:
		return fmt.Errorf(`--dry-run must be "none", "client" or "server", not %q`, o.DryRun)
	}
	if o.Name != "" {
		if errs := validation.IsDNS1123Subdomain(o.Name); len(errs) > 0 {
			return fmt.Errorf("--name %q is not a valid object name: %s", o.Name, errs[0])
		}
	}
	if _, err := o.PrintFlags.ToPrinter(); err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	return nil
}

// Create writes obj (or only prints it, for --dry-run=client) and prints the result.
func (o *Options) Create(ctx context.Context, c client.Client, obj client.Object, kind string, streams genericiooptions.IOStreams) error {
	if o.printer == nil {
		if o.DryRun != DryRunNone {
			o.PrintFlags.Complete("%s (" + o.DryRun + " dry run)")
		}
		printer, err := o.PrintFlags.ToPrinter()
		if err != nil {
			return err
		}
		o.printer = printer
	}
	gvk, err := apiutil.GVKForObject(obj, kube.Scheme)
	if err != nil {
		return err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	if o.DryRun != DryRunClient {
		var opts []client.CreateOption
		if o.DryRun == DryRunServer {
			opts = append(opts, client.DryRunAll)
		}
		if err := c.Create(ctx, obj, opts...); err != nil {
			return kube.Explain(err, kind)
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk) // the client clears it on decoding
	}
	return o.printer.PrintObj(obj, streams.Out)
}

var notNameChars = regexp.MustCompile(`[^a-z0-9]+`)

// NamePrefixFromImage is a generateName after the image's tag: "upgrade-v3-4-2-k3sv1-32-4-k3s1-"
// for verb "upgrade", so that `kubectl kairos status` says what each operation is for.
func NamePrefixFromImage(verb, image string) string {
	ref := image
	if at := strings.Index(ref, "@"); at >= 0 {
		ref = ref[:at]
	}
	tag := ""
	if colon := strings.LastIndex(ref, ":"); colon > strings.LastIndex(ref, "/") {
		tag = ref[colon+1:]
	}
	// Kairos tags end with the version: keep the end, where it differs between operations.
	if i := strings.LastIndex(tag, "-v"); i >= 0 {
		tag = tag[i+1:]
	}
	tag = strings.Trim(notNameChars.ReplaceAllString(strings.ToLower(tag), "-"), "-")
	if len(tag) > 40 {
		tag = strings.Trim(tag[:40], "-")
	}
	if tag == "" {
		return verb + "-"
	}
	return verb + "-" + tag + "-"
}
