package v1alpha1

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func TestNodeSelectorMatches(t *testing.T) {
	controlPlane := labels.Set{"kairos.io/managed": "true", "node-role.kubernetes.io/control-plane": "true"}
	worker := labels.Set{"kairos.io/managed": "true"}
	plain := labels.Set{}
	cases := []struct {
		name     string
		selector *NodeSelector
		want     []bool // control plane, worker, plain
	}{
		{"nil selects all", nil, []bool{true, true, true}},
		{"empty selects all", &NodeSelector{}, []bool{true, true, true}},
		{"matchLabels", &NodeSelector{MatchLabels: map[string]LabelValue{"kairos.io/managed": "true"}}, []bool{true, true, false}},
		{"In", &NodeSelector{MatchExpressions: []NodeSelectorRequirement{
			{Key: "node-role.kubernetes.io/control-plane", Operator: metav1.LabelSelectorOpIn, Values: []LabelValue{"true"}},
		}}, []bool{true, false, false}},
		{"DoesNotExist", &NodeSelector{MatchExpressions: []NodeSelectorRequirement{
			{Key: "node-role.kubernetes.io/control-plane", Operator: metav1.LabelSelectorOpDoesNotExist},
		}}, []bool{false, true, true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sel, err := tc.selector.Selector()
			if err != nil {
				t.Fatal(err)
			}
			got := []bool{sel.Matches(controlPlane), sel.Matches(worker), sel.Matches(plain)}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("matches %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNodeSelectorRoundTrip(t *testing.T) {
	ls, err := metav1.ParseToLabelSelector("kairos.io/managed=true,tier in (edge,core),!legacy")
	if err != nil {
		t.Fatal(err)
	}
	back, err := NodeSelectorFrom(ls).Selector()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := metav1.LabelSelectorAsSelector(ls)
	if back.String() != want.String() {
		t.Errorf("round trip changed the selector: got %q, want %q", back, want)
	}
	if NodeSelectorFrom(&metav1.LabelSelector{}) != nil {
		t.Error("an empty selector should become nil (all nodes)")
	}
}
