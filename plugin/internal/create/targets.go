package create

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// Targets are the flags that pick nodes and pace them, shared by the commands that write a
// NodeOp or a NodeOpUpgrade.
type Targets struct {
	Selector    string
	Concurrency int32

	selector *metav1.LabelSelector
}

// AddFlags registers --selector/-l and --concurrency; verb says what happens to each node.
func (t *Targets) AddFlags(cmd *cobra.Command, verb string) {
	cmd.Flags().StringVarP(&t.Selector, "selector", "l", t.Selector, "Label selector of the nodes (default: all nodes), e.g. kairos.io/managed=true.")
	cmd.Flags().Int32Var(&t.Concurrency, "concurrency", t.Concurrency, "Most nodes "+verb+" at once; 0 means all nodes at once.")
}

// Validate parses the selector and checks the concurrency.
func (t *Targets) Validate() error {
	var errs []error
	if t.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("--concurrency %d: use a number of nodes, or 0 for all at once", t.Concurrency))
	}
	if t.Selector != "" {
		sel, err := metav1.ParseToLabelSelector(t.Selector)
		if err != nil {
			errs = append(errs, fmt.Errorf("--selector %q: %w", t.Selector, err))
		}
		t.selector = sel
	}
	return errors.Join(errs...)
}

// NodeSelector is the parsed --selector, nil for all nodes. Call Validate first.
func (t *Targets) NodeSelector() *kairosv1alpha1.NodeSelector {
	return kairosv1alpha1.NodeSelectorFrom(t.selector)
}
