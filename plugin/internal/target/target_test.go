package target

import "testing"

func TestParse(t *testing.T) {
	cases := []struct{ arg, kind, name string }{
		{"upgrade-workers", NodeOp, "upgrade-workers"},
		{"nop/x", NodeOp, "x"},
		{"NodeOpUpgrade/kairos-upgrade", NodeOpUpgrade, "kairos-upgrade"},
		{"upgrade/u", NodeOpUpgrade, "u"},
		{"osa/iso", OSArtifact, "iso"},
	}
	for _, tc := range cases {
		kind, name, err := Parse(tc.arg)
		if err != nil || kind != tc.kind || name != tc.name {
			t.Errorf("Parse(%q) = %q, %q, %v", tc.arg, kind, name, err)
		}
	}
	for _, bad := range []string{"deployment/web", "nop/", ""} {
		if _, _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
