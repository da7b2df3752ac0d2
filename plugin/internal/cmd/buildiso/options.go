package buildiso

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/status"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/create"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/fetch"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/kube"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/progress"
)

// Keys of the Secrets the command writes.
const (
	dockerfileKey  = "Dockerfile"
	cloudConfigKey = "cloud-config.yaml"
)

// formats maps --formats words to what they build.
var formats = []string{"iso", "raw", "vhd", "gce", "netboot"}

// Options are the flags of build-iso.
type Options struct {
	*create.Options
	Progress    progress.Options
	configFlags *genericclioptions.ConfigFlags
	streams     genericiooptions.IOStreams

	Image       string
	BaseImage   string
	Dockerfile  string
	Set         []string
	ValuesFrom  string
	CloudConfig string
	Formats     []string
	PullSecrets []string
	Output      string
	FetchImage  string
	// Streamer copies the artifacts out; nil means over pods/exec.
	Streamer fetch.Streamer

	dockerfile  []byte
	cloudConfig []byte
	values      map[string]string
}

// NewOptions returns the defaults: an ISO.
func NewOptions(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *Options {
	return &Options{Options: create.NewOptions(), configFlags: flags, streams: streams, Formats: []string{"iso"}, FetchImage: "busybox:latest"}
}

// AddFlags registers the command's flags.
func (o *Options) AddFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.Image, "image", o.Image, "Kairos image to build from.")
	f.StringVar(&o.BaseImage, "base-image", o.BaseImage, "Plain Linux image to turn into Kairos and build from.")
	f.StringVar(&o.Dockerfile, "dockerfile", o.Dockerfile, "Dockerfile (a Go template) to build the image from; stored in a Secret.")
	f.StringArrayVar(&o.Set, "set", o.Set, "KEY=VALUE for the Dockerfile template (repeatable).")
	f.StringVar(&o.ValuesFrom, "values-from", o.ValuesFrom, "Secret whose entries are Dockerfile template values (--set wins).")
	f.StringVar(&o.CloudConfig, "cloud-config", o.CloudConfig, "Cloud-config file (starting with #cloud-config) to bake into the artifacts; stored in a Secret.")
	f.StringSliceVar(&o.Formats, "formats", o.Formats, "What to build, comma-separated: "+strings.Join(formats, ", ")+" (netboot needs iso).")
	f.StringArrayVar(&o.PullSecrets, "pull-secret", o.PullSecrets, "Secret to pull the source image with (repeatable).")
	// Not --output: -o/--output is the print format, as in every kubectl command.
	f.StringVar(&o.Output, "output-dir", o.Output, "Copy the artifacts into this directory once built (implies --wait).")
	f.StringVar(&o.FetchImage, "fetch-image", o.FetchImage, "Image of the short-lived pod that copies the artifacts out (needs sh, du and tar).")
	o.Options.AddFlags(cmd, "OSArtifact")
	o.Progress.AddFlags(cmd, "build")
	_ = cmd.RegisterFlagCompletionFunc("formats", completeFormats)
	_ = cmd.RegisterFlagCompletionFunc("pull-secret", kube.CompleteSecrets(o.configFlags))
	_ = cmd.RegisterFlagCompletionFunc("values-from", kube.CompleteSecrets(o.configFlags))
	_ = cmd.MarkFlagFilename("dockerfile")
	_ = cmd.MarkFlagFilename("cloud-config", "yaml", "yml")
	_ = cmd.MarkFlagDirname("output-dir")
}

// Complete reads the files named by flags, so that an unreadable file stops us before the
// cluster is contacted.
func (o *Options) Complete() error {
	var errs []error
	read := func(flag, path string) []byte {
		if path == "" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, fmt.Errorf("--%s: %w", flag, err))
		}
		return data
	}
	o.dockerfile = read("dockerfile", o.Dockerfile)
	o.cloudConfig = read("cloud-config", o.CloudConfig)
	if o.Output != "" && o.DryRun == create.DryRunNone {
		o.Progress.Wait = true // with a dry run, Validate says why there is nothing to copy
	}
	return errors.Join(errs...)
}

// Validate refuses bad input before anything is sent to the cluster.
func (o *Options) Validate() error {
	var errs []error
	sources := 0
	for _, s := range []string{o.Image, o.BaseImage, o.Dockerfile} {
		if s != "" {
			sources++
		}
	}
	if sources != 1 {
		errs = append(errs, errors.New("give exactly one source: --image (a Kairos image), --base-image (a plain Linux image) or --dockerfile FILE"))
	}
	if o.Dockerfile == "" && (len(o.Set) > 0 || o.ValuesFrom != "") {
		errs = append(errs, errors.New("--set and --values-from fill in a Dockerfile template; they need --dockerfile"))
	}
	o.values = map[string]string{}
	for _, kv := range o.Set {
		key, value, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(key) == "" {
			errs = append(errs, fmt.Errorf("--set %q: use KEY=VALUE", kv))
			continue
		}
		o.values[key] = value
	}
	for flag, names := range map[string][]string{"values-from": nonEmpty(o.ValuesFrom), "pull-secret": o.PullSecrets} {
		for _, n := range names {
			if msgs := validation.IsDNS1123Subdomain(n); len(msgs) > 0 {
				errs = append(errs, fmt.Errorf("--%s %q is not a Secret name: %s", flag, n, msgs[0]))
			}
		}
	}
	if o.cloudConfig != nil && !strings.HasPrefix(strings.TrimSpace(string(o.cloudConfig)), "#cloud-config") {
		errs = append(errs, fmt.Errorf("--cloud-config %s does not start with #cloud-config, so Kairos would ignore it", o.CloudConfig))
	}
	errs = append(errs, o.validateFormats()...)
	if o.Output != "" {
		if o.DryRun != create.DryRunNone {
			errs = append(errs, fmt.Errorf("--output-dir copies what a build produced; there is no build with --dry-run=%s", o.DryRun))
		}
		if info, err := os.Stat(o.Output); err == nil && !info.IsDir() {
			errs = append(errs, fmt.Errorf("--output-dir %s is a file; give a directory", o.Output))
		}
	}
	if err := o.Options.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := o.Progress.Validate(o.DryRun); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (o *Options) validateFormats() []error {
	var errs []error
	if len(o.Formats) == 0 {
		errs = append(errs, fmt.Errorf("--formats is empty; choose from %s", strings.Join(formats, ", ")))
	}
	for _, f := range o.Formats {
		if !slices.Contains(formats, f) {
			errs = append(errs, fmt.Errorf("--formats: unknown format %q; choose from %s", f, strings.Join(formats, ", ")))
		}
	}
	if slices.Contains(o.Formats, "netboot") && !slices.Contains(o.Formats, "iso") {
		errs = append(errs, errors.New("--formats: netboot files are extracted from the ISO; use --formats iso,netboot"))
	}
	return errs
}

// completeFormats completes the word after the last comma: "iso,r" offers "iso,raw".
func completeFormats(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	done, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		done, last = toComplete[:i+1], toComplete[i+1:]
	}
	var out []string
	for _, f := range formats {
		if strings.HasPrefix(f, last) && !slices.Contains(strings.Split(done, ","), f) {
			out = append(out, done+f)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// Objects are what the flags describe: the Secrets for the files given, then the OSArtifact.
func (o *Options) Objects(namespace string) (*kairosv1alpha2.OSArtifact, []*corev1.Secret) {
	name := o.Name
	if name == "" {
		name = create.NamePrefixFromImage("build", o.Image+o.BaseImage) + utilrand.String(5)
	}
	a := &kairosv1alpha2.OSArtifact{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	s := &a.Spec
	s.ImageName, s.BaseImageName = o.Image, o.BaseImage
	s.ISO = slices.Contains(o.Formats, "iso")
	s.CloudImage = slices.Contains(o.Formats, "raw")
	s.AzureImage = slices.Contains(o.Formats, "vhd")
	s.GCEImage = slices.Contains(o.Formats, "gce")
	s.Netboot = slices.Contains(o.Formats, "netboot")
	for _, p := range o.PullSecrets {
		s.ImagePullSecrets = append(s.ImagePullSecrets, corev1.LocalObjectReference{Name: p})
	}
	var secrets []*corev1.Secret
	secret := func(suffix, key string, data []byte) string {
		sec := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-" + suffix, Namespace: namespace, Labels: map[string]string{kairosv1alpha2.LabelArtifact: name}},
			Data:       map[string][]byte{key: data},
		}
		secrets = append(secrets, sec)
		return sec.Name
	}
	if o.dockerfile != nil {
		s.BaseImageDockerfile = &kairosv1alpha2.DockerfileSource{Name: secret("dockerfile", dockerfileKey, o.dockerfile), Key: dockerfileKey}
		if len(o.values) > 0 {
			s.DockerfileTemplateValues = o.values
		}
		if o.ValuesFrom != "" {
			s.DockerfileTemplateValuesFrom = &kairosv1alpha2.SecretReference{Name: o.ValuesFrom}
		}
	}
	if o.cloudConfig != nil {
		s.CloudConfigRef = &kairosv1alpha2.SecretKeySelector{Name: secret("cloud-config", cloudConfigKey, o.cloudConfig), Key: cloudConfigKey}
	}
	return a, secrets
}

// Run writes the Secrets and the OSArtifact, then follows the build and copies it out if asked.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := kube.Client(o.configFlags)
	if err != nil {
		return err
	}
	artifact, secrets := o.Objects(ns)
	if err := o.write(ctx, c, artifact, secrets); err != nil {
		return err
	}
	if err := o.Progress.Run(ctx, c, o.configFlags, o.streams, ns, "OSArtifact", artifact.Name); err != nil || o.Output == "" {
		return err
	}
	if ctx.Err() != nil {
		return nil // interrupted while waiting: nothing to copy yet
	}
	return o.fetch(ctx, c, ns, artifact.Name)
}

// write creates the Secrets first (the OSArtifact refers to them), then the OSArtifact, then
// makes the OSArtifact the Secrets' owner so they go with it. If the OSArtifact is refused, the
// Secrets are removed again: a failed command leaves nothing behind.
func (o *Options) write(ctx context.Context, c client.Client, artifact *kairosv1alpha2.OSArtifact, secrets []*corev1.Secret) error {
	var created []*corev1.Secret
	undo := func() {
		for _, s := range created {
			_ = c.Delete(context.WithoutCancel(ctx), s)
		}
	}
	for _, s := range secrets {
		if err := o.Create(ctx, c, s, "Secret", o.streams); err != nil {
			undo()
			return err
		}
		created = append(created, s)
	}
	if err := o.Create(ctx, c, artifact, "OSArtifact", o.streams); err != nil {
		if o.DryRun == create.DryRunNone {
			undo()
		}
		return err
	}
	if o.DryRun != create.DryRunNone {
		return nil
	}
	owner := metav1.NewControllerRef(artifact, kairosv1alpha2.GroupVersion.WithKind("OSArtifact"))
	for _, s := range created {
		patch := client.MergeFrom(s.DeepCopy())
		s.OwnerReferences = append(s.OwnerReferences, *owner)
		if err := c.Patch(ctx, s, patch); err != nil {
			return fmt.Errorf("make OSArtifact %s the owner of Secret %s (delete the Secret with it by hand): %w", artifact.Name, s.Name, err)
		}
	}
	return nil
}

func (o *Options) fetch(ctx context.Context, c client.WithWatch, ns, name string) error {
	streamer := o.Streamer
	if streamer == nil {
		cfg, cs, err := kube.Clientset(o.configFlags)
		if err != nil {
			return err
		}
		streamer = fetch.ExecStreamer{Config: cfg, Clientset: cs}
	}
	f := &fetch.Fetcher{Client: c, Streamer: streamer, Image: o.FetchImage, Progress: o.streams.ErrOut, Live: status.IsTerminal(o.streams.ErrOut)}
	fmt.Fprintf(o.streams.ErrOut, "Copying the artifacts of %s into %s\n", name, o.Output)
	files, err := f.Fetch(ctx, ns, name, o.Output)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.streams.Out, "Copied %d files into %s: %s\n", len(files), o.Output, strings.Join(files, ", "))
	return nil
}
