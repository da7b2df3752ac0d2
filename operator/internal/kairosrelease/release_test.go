package kairosrelease

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestLabelValue(t *testing.T) {
	cases := []struct{ in, want string }{
		{"v3.4.2", "v3.4.2"},
		{"v1.32.4+k3s1", "v1.32.4-k3s1"},
		{"openSUSE Leap 15.6", "openSUSE-Leap-15.6"},
		{"  -ubuntu-  ", "ubuntu"},
		{"", ""},
		{"+++", ""},
		{"true", "true"},
	}
	for _, tc := range cases {
		if got := LabelValue(tc.in); got != tc.want {
			t.Errorf("LabelValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := strings.Repeat("a", 70)
	got := LabelValue(long)
	if len(got) != 63 || len(validation.IsValidLabelValue(got)) > 0 {
		t.Errorf("LabelValue(70 a's) = %q (%d chars), want a valid 63-character value", got, len(got))
	}
	if LabelValue(long) == LabelValue(long+"b") {
		t.Error("two long values became one label value")
	}
	if v := LabelValue(strings.Repeat("x", 58) + "-----" + strings.Repeat("y", 10)); len(validation.IsValidLabelValue(v)) > 0 {
		t.Errorf("%q is not a valid label value", v)
	}
}
