package status

import (
	"context"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/kube"
)

// Report is everything `status` shows; -o json|yaml prints it as it is.
type Report struct {
	// Operations lists every operation (without a name argument).
	Operations []Operation `json:"operations,omitempty"`
	// Detail describes one operation node by node (with a name argument).
	Detail *Detail `json:"detail,omitempty"`
}

// Operation is one NodeOp, NodeOpUpgrade or OSArtifact.
type Operation struct {
	Kind      string      `json:"kind"`
	Namespace string      `json:"namespace"`
	Name      string      `json:"name"`
	Phase     string      `json:"phase"`
	Progress  string      `json:"progress,omitempty"`
	Failed    int32       `json:"failed"`
	Message   string      `json:"message,omitempty"`
	Created   metav1.Time `json:"created"`
}

// Detail is one operation with a row per node.
type Detail struct {
	Operation `json:",inline"`
	Nodes     []NodeRow `json:"nodes"`
}

// NodeRow is one node of an operation.
type NodeRow struct {
	Node     string       `json:"node"`
	Phase    string       `json:"phase"`
	Reboot   string       `json:"reboot,omitempty"`
	Job      string       `json:"job,omitempty"`
	Message  string       `json:"message,omitempty"`
	Started  *metav1.Time `json:"started,omitempty"`
	Finished *metav1.Time `json:"finished,omitempty"`
}

// gatherAll lists every operation in ns ("" for all namespaces).
func gatherAll(ctx context.Context, c client.Client, ns string) (*Report, error) {
	var ops kairosv1alpha1.NodeOpList
	var ups kairosv1alpha1.NodeOpUpgradeList
	var arts kairosv1alpha2.OSArtifactList
	r := &Report{Operations: []Operation{}}
	for _, l := range []struct {
		list client.ObjectList
		kind string
	}{{&ops, "NodeOp"}, {&ups, "NodeOpUpgrade"}, {&arts, "OSArtifact"}} {
		if err := c.List(ctx, l.list, client.InNamespace(ns)); err != nil {
			return nil, kube.Explain(err, l.kind)
		}
	}
	for i := range ups.Items {
		r.Operations = append(r.Operations, upgradeOperation(&ups.Items[i]))
	}
	for i := range ops.Items {
		if _, fromUpgrade := ops.Items[i].Labels[kairosv1alpha1.LabelNodeOpUpgrade]; fromUpgrade {
			continue // shown through its NodeOpUpgrade
		}
		r.Operations = append(r.Operations, nodeOpOperation(&ops.Items[i]))
	}
	for i := range arts.Items {
		a := &arts.Items[i]
		failed := int32(0)
		if a.Status.Phase == kairosv1alpha2.ArtifactError {
			failed = 1
		}
		r.Operations = append(r.Operations, Operation{Kind: "OSArtifact", Namespace: a.Namespace, Name: a.Name,
			Phase: orPending(string(a.Status.Phase)), Failed: failed, Message: a.Status.Message, Created: a.CreationTimestamp})
	}
	sort.SliceStable(r.Operations, func(i, j int) bool {
		a, b := r.Operations[i], r.Operations[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
	return r, nil
}

// gatherOne describes one operation node by node.
func gatherOne(ctx context.Context, c client.Client, ns, kind, name string) (*Report, error) {
	key := client.ObjectKey{Namespace: ns, Name: name}
	var d Detail
	var nodes map[string]kairosv1alpha1.NodeStatus
	switch kind {
	case "NodeOp":
		var op kairosv1alpha1.NodeOp
		if err := c.Get(ctx, key, &op); err != nil {
			return nil, kube.Explain(err, kind)
		}
		d.Operation, nodes = nodeOpOperation(&op), op.Status.NodeStatuses
	case "NodeOpUpgrade":
		var up kairosv1alpha1.NodeOpUpgrade
		if err := c.Get(ctx, key, &up); err != nil {
			return nil, kube.Explain(err, kind)
		}
		d.Operation, nodes = upgradeOperation(&up), up.Status.NodeStatuses
	default:
		var a kairosv1alpha2.OSArtifact
		if err := c.Get(ctx, key, &a); err != nil {
			return nil, kube.Explain(err, kind)
		}
		d.Operation = Operation{Kind: kind, Namespace: a.Namespace, Name: a.Name, Phase: orPending(string(a.Status.Phase)),
			Message: a.Status.Message, Created: a.CreationTimestamp}
	}
	d.Nodes = []NodeRow{}
	for node, st := range nodes {
		d.Nodes = append(d.Nodes, NodeRow{Node: node, Phase: string(st.Phase), Reboot: string(st.RebootStatus),
			Job: st.JobName, Message: st.Message, Started: st.StartedAt, Finished: st.FinishedAt})
	}
	sort.Slice(d.Nodes, func(i, j int) bool { return d.Nodes[i].Node < d.Nodes[j].Node })
	return &Report{Detail: &d}, nil
}

func nodeOpOperation(op *kairosv1alpha1.NodeOp) Operation {
	return Operation{Kind: "NodeOp", Namespace: op.Namespace, Name: op.Name, Phase: orPending(string(op.Status.Phase)),
		Progress: op.Status.Progress, Failed: op.Status.FailedNodes, Message: op.Status.Message, Created: op.CreationTimestamp}
}

func upgradeOperation(up *kairosv1alpha1.NodeOpUpgrade) Operation {
	return Operation{Kind: "NodeOpUpgrade", Namespace: up.Namespace, Name: up.Name, Phase: orPending(string(up.Status.Phase)),
		Progress: up.Status.Progress, Failed: up.Status.FailedNodes, Message: up.Status.Message, Created: up.CreationTimestamp}
}

func orPending(phase string) string {
	if phase == "" {
		return "Pending"
	}
	return phase
}

// nodeDuration is how long a node took, or has taken so far.
func nodeDuration(n NodeRow, now time.Time) time.Duration {
	if n.Started == nil {
		return 0
	}
	end := now
	if n.Finished != nil {
		end = n.Finished.Time
	}
	return end.Sub(n.Started.Time)
}

// Describe reads one operation with a row per node.
func Describe(ctx context.Context, c client.Client, ns, kind, name string) (*Detail, error) {
	r, err := gatherOne(ctx, c, ns, kind, name)
	if err != nil {
		return nil, err
	}
	return r.Detail, nil
}
