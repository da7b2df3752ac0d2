// Package labeler reads what a Kairos node says about itself (/etc/kairos-release, the kernel
// command line) and turns it into node labels: kairos.io/managed=true, the release facts and
// the partition the node booted from.
package labeler

import (
	"strings"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/kairosrelease"
)

// releaseLabels maps keys of /etc/kairos-release to the labels they become.
var releaseLabels = map[string]string{
	kairosrelease.KeyVersion:         "kairos.io/version",
	"KAIROS_FLAVOR":                  "kairos.io/flavor",
	"KAIROS_FLAVOR_RELEASE":          "kairos.io/flavor-release",
	"KAIROS_VARIANT":                 "kairos.io/variant",
	"KAIROS_MODEL":                   "kairos.io/model",
	"KAIROS_ARCH":                    "kairos.io/arch",
	"KAIROS_TARGETARCH":              "kairos.io/arch",
	kairosrelease.KeySoftwareVersion: "kairos.io/software-version",
	"KAIROS_TRUSTED_BOOT":            "kairos.io/trusted-boot",
	"KAIROS_FIPS":                    "kairos.io/fips",
}

// Boot states reported in kairos.io/boot-state.
const (
	BootActive   = "active"
	BootPassive  = "passive"
	BootRecovery = "recovery"
	BootLiveCD   = "livecd"
	BootUnknown  = "unknown"
)

// IsKairos tells from /etc/os-release whether a node without /etc/kairos-release runs Kairos.
func IsKairos(osRelease map[string]string) bool {
	return strings.Contains(strings.ToLower(osRelease["ID"]), "kairos")
}

// BootState tells from the kernel command line which partition the node booted from.
func BootState(cmdline string) string {
	switch {
	case strings.Contains(cmdline, "active.img"):
		return BootActive
	case strings.Contains(cmdline, "passive.img"):
		return BootPassive
	case strings.Contains(cmdline, "recovery.img"), strings.Contains(cmdline, "recovery.squashfs"),
		strings.Contains(cmdline, "COS_RECOVERY"):
		return BootRecovery
	case strings.Contains(cmdline, "COS_LIVE"), strings.Contains(cmdline, "rd.cos.disable"),
		strings.Contains(cmdline, "live:"):
		return BootLiveCD
	}
	return BootUnknown
}

// Labels are the labels a Kairos node should carry, from its release facts and command line.
func Labels(release map[string]string, cmdline string) map[string]string {
	out := map[string]string{
		kairosv1alpha1.LabelManaged:   "true",
		kairosv1alpha1.LabelBootState: BootState(cmdline),
	}
	for key, label := range releaseLabels {
		if v := kairosrelease.LabelValue(release[key]); v != "" {
			out[label] = v
		}
	}
	return out
}
