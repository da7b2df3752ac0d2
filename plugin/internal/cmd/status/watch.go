package status

import (
	"context"
	"fmt"
	"os"
	"time"

	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/kube"
)

// rewatchDelay spaces attempts to watch again after a failure.
const rewatchDelay = 2 * time.Second

// clearScreen moves to the top left and clears, so a terminal shows one live view.
const clearScreen = "\x1b[H\x1b[2J"

// watch prints r, then again after every change of the watched operations, until ctx ends
// (Ctrl-C: the operation itself is left alone) or a watched single operation finishes.
func (o *Options) watch(ctx context.Context, c client.WithWatch, ns string, r *Report, watches []watch.Interface) error {
	live := IsTerminal(o.streams.Out)
	changes := make(chan struct{}, 1)
	errs := make(chan error, len(watches))
	for i, list := range o.watchedLists() {
		go func() { errs <- o.follow(ctx, c, ns, list, watches[i], changes) }()
	}
	for first := true; ; first = false {
		if live {
			fmt.Fprint(o.streams.Out, clearScreen)
		} else if !first {
			fmt.Fprintln(o.streams.Out)
		}
		if err := printText(o.streams.Out, r, o.Now(), o.AllNamespaces); err != nil {
			return err
		}
		if r.Detail != nil && IsFinished(r.Detail.Phase) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case err := <-errs:
			return err
		case <-changes:
		}
		next, err := o.gather(ctx, c, ns)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		r = next
	}
}

func (o *Options) watchedLists() []client.ObjectList {
	switch o.kind {
	case "NodeOp":
		return []client.ObjectList{&kairosv1alpha1.NodeOpList{}}
	case "NodeOpUpgrade":
		return []client.ObjectList{&kairosv1alpha1.NodeOpUpgradeList{}}
	case "OSArtifact":
		return []client.ObjectList{&kairosv1alpha2.OSArtifactList{}}
	}
	return []client.ObjectList{&kairosv1alpha1.NodeOpList{}, &kairosv1alpha1.NodeOpUpgradeList{}, &kairosv1alpha2.OSArtifactList{}}
}

// openWatches starts a watch per watched type.
func (o *Options) openWatches(ctx context.Context, c client.WithWatch, ns string) ([]watch.Interface, error) {
	var watches []watch.Interface
	for _, list := range o.watchedLists() {
		w, err := c.Watch(ctx, list, o.listOptions(ns)...)
		if err != nil {
			for _, open := range watches {
				open.Stop()
			}
			return nil, kube.Explain(err, "Kairos")
		}
		watches = append(watches, w)
	}
	return watches, nil
}

func (o *Options) listOptions(ns string) []client.ListOption {
	opts := []client.ListOption{client.InNamespace(ns)}
	if o.name != "" {
		opts = append(opts, client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("metadata.name", o.name)})
	}
	return opts
}

// follow signals on changes every change seen by w, re-opening the watch when the API server
// ends it, until ctx ends.
func (o *Options) follow(ctx context.Context, c client.WithWatch, ns string, list client.ObjectList, w watch.Interface, changes chan<- struct{}) error {
	for {
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				break
			}
			select { // one pending signal is enough: the next render reads everything
			case changes <- struct{}{}:
			default:
			}
		}
		w.Stop()
		if ctx.Err() != nil {
			return nil
		}
		// Reopen, retrying through a passing outage: a watch of hours must not end on one.
		var err error
		for w, err = c.Watch(ctx, list, o.listOptions(ns)...); err != nil; w, err = c.Watch(ctx, list, o.listOptions(ns)...) {
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(rewatchDelay):
			}
		}
		// Changes made while no watch was open are caught by the next render.
		select {
		case changes <- struct{}{}:
		default:
		}
	}
}

// Changes signals on changes every change of one operation until ctx ends.
func Changes(ctx context.Context, c client.WithWatch, ns, kind, name string, changes chan<- struct{}) error {
	o := &Options{kind: kind, name: name}
	watches, err := o.openWatches(ctx, c, ns)
	if err != nil {
		return err
	}
	return o.follow(ctx, c, ns, o.watchedLists()[0], watches[0], changes)
}

// IsFinished tells whether an operation in phase will change no more.
func IsFinished(phase string) bool {
	switch phase {
	case "Completed", "Failed", "Ready", "Error":
		return true
	}
	return false
}

// IsTerminal tells whether w is a terminal, where output may be redrawn and coloured.
func IsTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
