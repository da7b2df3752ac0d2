package logs

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/kube"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/target"
)

// rewatchDelay spaces attempts to watch pods again after a failure.
const rewatchDelay = 2 * time.Second

// Options are the flags and arguments of logs.
type Options struct {
	configFlags *genericclioptions.ConfigFlags
	streams     genericiooptions.IOStreams

	Node   string
	Follow bool
	kind   string
	name   string
	// Source opens container logs; nil means through the API server.
	Source Source

	out sync.Mutex // one line at a time from concurrent streams
}

// NewOptions returns the defaults.
func NewOptions(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) *Options {
	return &Options{configFlags: flags, streams: streams}
}

// Following returns Options that follow the logs of one operation, as `logs -f` does.
func Following(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, kind, name string) *Options {
	return &Options{configFlags: flags, streams: streams, kind: kind, name: name, Follow: true}
}

// AddFlags registers the command's flags.
func (o *Options) AddFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.Node, "node", o.Node, "Only this node's logs.")
	cmd.Flags().BoolVarP(&o.Follow, "follow", "f", o.Follow, "Keep streaming, including pods of nodes the rollout reaches later (Ctrl-C stops).")
}

// Complete reads NAME or TYPE/NAME.
func (o *Options) Complete(args []string) error {
	kind, name, err := target.Parse(args[0])
	o.kind, o.name = kind, name
	return err
}

// Validate has nothing more to check than Complete did; it keeps the usual shape.
func (o *Options) Validate() error { return nil }

// selector picks the pods whose logs belong to the operation. A NodeOpUpgrade's NodeOp has the
// NodeOpUpgrade's name.
func (o *Options) selector() client.MatchingLabels {
	if o.kind == target.OSArtifact {
		return client.MatchingLabels{kairosv1alpha2.LabelArtifact: o.name}
	}
	sel := client.MatchingLabels{kairosv1alpha1.LabelNodeOp: o.name}
	if o.Node != "" {
		sel[kairosv1alpha1.LabelNode] = kairosv1alpha1.NodeLabelValue(o.Node)
	}
	return sel
}

// Run prints the logs; with --follow it keeps streaming until ctx ends.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := kube.Client(o.configFlags)
	if err != nil {
		return err
	}
	if o.Source == nil {
		_, cs, err := kube.Clientset(o.configFlags)
		if err != nil {
			return err
		}
		o.Source = kubeletSource{client: cs}
	}
	if o.Follow {
		return o.follow(ctx, c, ns)
	}
	var pods corev1.PodList
	if err := c.List(ctx, &pods, client.InNamespace(ns), o.selector()); err != nil {
		return kube.Explain(err, "Pod")
	}
	if len(pods.Items) == 0 {
		return fmt.Errorf("no pods of %s %s yet; its nodes may not have started (see kubectl kairos status %s)", o.kind, o.name, o.name)
	}
	sort.Slice(pods.Items, func(i, j int) bool { return pods.Items[i].Spec.NodeName < pods.Items[j].Spec.NodeName })
	for i := range pods.Items {
		pod := &pods.Items[i]
		for _, container := range startedContainers(pod) {
			if err := o.copy(ctx, pod, container, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// follow streams every started container of every matching pod, present or future. The
// watch is opened again whenever the API server ends it, so a rollout of hours is followed to
// the end; pods already streaming are not streamed twice.
func (o *Options) follow(ctx context.Context, c client.WithWatch, ns string) error {
	var wg sync.WaitGroup
	defer wg.Wait()                // the streams end with ctx
	streaming := map[string]bool{} // pod UID/container
	for first := true; ; first = false {
		w, err := c.Watch(ctx, &corev1.PodList{}, client.InNamespace(ns), o.selector())
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil && first:
			return kube.Explain(err, "Pod")
		case err != nil:
			// A passing outage must not end a follow of hours: say so and try again.
			o.line(fmt.Sprintf("(watching pods failed: %v; retrying)", err))
			select {
			case <-ctx.Done():
			case <-time.After(rewatchDelay):
			}
			continue
		}
		o.streamNewContainers(ctx, w, streaming, &wg)
		w.Stop()
		if ctx.Err() != nil {
			return nil
		}
	}
}

// streamNewContainers starts a stream for every container seen on w for the first time, until
// w or ctx ends.
func (o *Options) streamNewContainers(ctx context.Context, w watch.Interface, streaming map[string]bool, wg *sync.WaitGroup) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok {
				return
			}
			pod, isPod := ev.Object.(*corev1.Pod)
			if !isPod || ev.Type == watch.Deleted {
				continue
			}
			for _, container := range startedContainers(pod) {
				key := string(pod.UID) + "/" + container
				if streaming[key] {
					continue
				}
				streaming[key] = true
				wg.Go(func() {
					if err := o.copy(ctx, pod, container, true); err != nil && ctx.Err() == nil {
						o.line(fmt.Sprintf("[%s] (log of %s/%s ended: %v)", nodeOf(pod), pod.Name, container, err))
					}
				})
			}
		}
	}
}

// copy writes one container's log, each line prefixed with the pod's node.
func (o *Options) copy(ctx context.Context, pod *corev1.Pod, container string, follow bool) error {
	r, err := o.Source.Open(ctx, pod.Namespace, pod.Name, container, follow)
	if err != nil {
		return fmt.Errorf("logs of pod %s, container %s: %w", pod.Name, container, err)
	}
	defer r.Close()
	return o.prefixLines(r, "["+nodeOf(pod)+"] ")
}

func (o *Options) prefixLines(r io.Reader, prefix string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		o.line(prefix + sc.Text())
	}
	return sc.Err()
}

func (o *Options) line(s string) {
	o.out.Lock()
	defer o.out.Unlock()
	fmt.Fprintln(o.streams.Out, s)
}

// startedContainers lists the containers of pod that have a log: init containers first, in
// order, then the others, each once it has started.
func startedContainers(pod *corev1.Pod) []string {
	var names []string
	for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, cs := range list {
			if cs.State.Running != nil || cs.State.Terminated != nil {
				names = append(names, cs.Name)
			}
		}
	}
	return names
}

func nodeOf(pod *corev1.Pod) string {
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName
	}
	return pod.Labels[kairosv1alpha1.LabelNode]
}
