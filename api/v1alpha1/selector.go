package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// NodeSelector picks nodes by label. It reads and writes exactly like a Kubernetes label selector
// (matchLabels, matchExpressions); it is a type of its own so that the schema can bound its size
// and check its syntax at admission.
//
// +kubebuilder:validation:XValidation:rule="!has(self.matchLabels) || self.matchLabels.all(k, !format.qualifiedName().validate(k).hasValue())",message="matchLabels keys must be valid label keys, e.g. kairos.io/managed"
type NodeSelector struct {
	// MatchLabels selects nodes that carry every one of these labels with these values.
	// +optional
	// +kubebuilder:validation:MaxProperties=64
	MatchLabels map[string]LabelValue `json:"matchLabels,omitempty"`

	// MatchExpressions selects nodes that satisfy every one of these requirements.
	// +optional
	// +kubebuilder:validation:MaxItems=32
	// +listType=atomic
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions,omitempty"`
}

// NodeSelectorRequirement is one requirement on a node's labels.
//
// +kubebuilder:validation:XValidation:rule="self.operator in ['In', 'NotIn'] ? (has(self.values) && size(self.values) > 0) : (!has(self.values) || size(self.values) == 0)",message="values must be non-empty for In and NotIn, and empty for Exists and DoesNotExist"
type NodeSelectorRequirement struct {
	// Key is the label key.
	Key LabelKey `json:"key"`

	// Operator is how the key's value relates to Values.
	// +kubebuilder:validation:Enum=In;NotIn;Exists;DoesNotExist
	Operator metav1.LabelSelectorOperator `json:"operator"`

	// Values for In and NotIn.
	// +optional
	// +kubebuilder:validation:MaxItems=64
	// +listType=atomic
	Values []LabelValue `json:"values,omitempty"`
}

// LabelKey is a label key: an optional DNS subdomain prefix and a slash, then a name of at most
// 63 characters.
//
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=317
// +kubebuilder:validation:XValidation:rule="!format.qualifiedName().validate(self).hasValue()",message="must be a valid label key, e.g. kairos.io/managed"
type LabelKey string

// LabelValue is a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending
// with a letter or digit, or empty.
//
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`
type LabelValue string

// LabelSelector converts s to the Kubernetes type; a nil s selects everything.
func (s *NodeSelector) LabelSelector() *metav1.LabelSelector {
	if s == nil {
		return &metav1.LabelSelector{}
	}
	out := &metav1.LabelSelector{}
	if len(s.MatchLabels) > 0 {
		out.MatchLabels = make(map[string]string, len(s.MatchLabels))
		for k, v := range s.MatchLabels {
			out.MatchLabels[k] = string(v)
		}
	}
	for _, r := range s.MatchExpressions {
		req := metav1.LabelSelectorRequirement{Key: string(r.Key), Operator: r.Operator}
		for _, v := range r.Values {
			req.Values = append(req.Values, string(v))
		}
		out.MatchExpressions = append(out.MatchExpressions, req)
	}
	return out
}

// Selector returns the label selector to list nodes with; a nil s selects every node.
func (s *NodeSelector) Selector() (labels.Selector, error) {
	return metav1.LabelSelectorAsSelector(s.LabelSelector())
}

// NodeSelectorFrom converts a Kubernetes label selector, e.g. one parsed from a command line.
func NodeSelectorFrom(ls *metav1.LabelSelector) *NodeSelector {
	if ls == nil || (len(ls.MatchLabels) == 0 && len(ls.MatchExpressions) == 0) {
		return nil
	}
	out := &NodeSelector{}
	if len(ls.MatchLabels) > 0 {
		out.MatchLabels = make(map[string]LabelValue, len(ls.MatchLabels))
		for k, v := range ls.MatchLabels {
			out.MatchLabels[k] = LabelValue(v)
		}
	}
	for _, r := range ls.MatchExpressions {
		req := NodeSelectorRequirement{Key: LabelKey(r.Key), Operator: r.Operator}
		for _, v := range r.Values {
			req.Values = append(req.Values, LabelValue(v))
		}
		out.MatchExpressions = append(out.MatchExpressions, req)
	}
	return out
}
