package status

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// printText writes the report as tables, one printer per section.
func printText(w io.Writer, r *Report, now time.Time, allNamespaces bool) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	if r.Detail != nil {
		printDetail(tw, r.Detail, now)
	} else {
		printOperations(tw, r.Operations, now, allNamespaces)
	}
	return tw.Flush()
}

func printOperations(w io.Writer, ops []Operation, now time.Time, allNamespaces bool) {
	if len(ops) == 0 {
		fmt.Fprintln(w, "No Kairos operations found.")
		return
	}
	if allNamespaces {
		fmt.Fprint(w, "NAMESPACE\t")
	}
	fmt.Fprintln(w, "OPERATION\tPHASE\tPROGRESS\tFAILED\tAGE")
	for _, op := range ops {
		if allNamespaces {
			fmt.Fprintf(w, "%s\t", op.Namespace)
		}
		fmt.Fprintf(w, "%s/%s\t%s\t%s\t%d\t%s\n", kindName(op.Kind), op.Name, op.Phase, dash(op.Progress), op.Failed, age(op.Created.Time, now))
	}
}

func printDetail(w io.Writer, d *Detail, now time.Time) {
	fmt.Fprintf(w, "%s %s/%s: %s", d.Kind, d.Namespace, d.Name, d.Phase)
	if d.Progress != "" {
		fmt.Fprintf(w, ", %s nodes done", d.Progress)
	}
	if d.Failed > 0 {
		fmt.Fprintf(w, ", %d failed", d.Failed)
	}
	fmt.Fprintln(w)
	if d.Message != "" {
		fmt.Fprintf(w, "%s\n", d.Message)
	}
	if len(d.Nodes) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "NODE\tPHASE\tREBOOT\tJOB\tDURATION\tMESSAGE")
	for _, n := range d.Nodes {
		took := "-"
		if d := nodeDuration(n, now); d > 0 {
			took = duration.HumanDuration(d)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", n.Node, n.Phase, dash(n.Reboot), dash(n.Job), took, n.Message)
	}
}

func kindName(kind string) string {
	switch kind {
	case "NodeOp":
		return "nodeop"
	case "NodeOpUpgrade":
		return "nodeopupgrade"
	}
	return "osartifact"
}

func age(created, now time.Time) string {
	if created.IsZero() {
		return "-"
	}
	return duration.HumanDuration(now.Sub(created))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
