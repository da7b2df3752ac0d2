// Package labeler reads what a Kairos node says about itself (/etc/kairos-release, the kernel
// command line) and turns it into node labels: kairos.io/managed=true, the release facts and
// the partition the node booted from.
package labeler

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// releaseLabels maps keys of /etc/kairos-release to the labels they become.
var releaseLabels = map[string]string{
	"KAIROS_VERSION":          "kairos.io/version",
	"KAIROS_FLAVOR":           "kairos.io/flavor",
	"KAIROS_FLAVOR_RELEASE":   "kairos.io/flavor-release",
	"KAIROS_VARIANT":          "kairos.io/variant",
	"KAIROS_MODEL":            "kairos.io/model",
	"KAIROS_ARCH":             "kairos.io/arch",
	"KAIROS_TARGETARCH":       "kairos.io/arch",
	"KAIROS_SOFTWARE_VERSION": "kairos.io/software-version",
	"KAIROS_TRUSTED_BOOT":     "kairos.io/trusted-boot",
	"KAIROS_FIPS":             "kairos.io/fips",
}

// Boot states reported in kairos.io/boot-state.
const (
	BootActive   = "active"
	BootPassive  = "passive"
	BootRecovery = "recovery"
	BootLiveCD   = "livecd"
	BootUnknown  = "unknown"
)

// ParseRelease reads an os-release style file: KEY=VALUE lines, values optionally quoted.
func ParseRelease(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		value = strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		out[strings.TrimSpace(key)] = value
	}
	return out, sc.Err()
}

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
		if v := LabelValue(release[key]); v != "" {
			out[label] = v
		}
	}
	return out
}

// LabelValue makes s a valid label value: characters other than letters, digits, '-', '_' and
// '.' become '-', the ends are trimmed to alphanumerics, and values over 63 characters are cut
// with a short hash of the original so that distinct values stay distinct. "" means no label.
func LabelValue(s string) string {
	b := []byte(strings.TrimSpace(s))
	for i, c := range b {
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			b[i] = '-'
		}
	}
	v := trimToAlnum(string(b))
	if len(v) > validation.LabelValueMaxLength {
		sum := sha256.Sum256([]byte(s))
		suffix := hex.EncodeToString(sum[:4])
		v = trimToAlnum(v[:validation.LabelValueMaxLength-len(suffix)-1]) + "-" + suffix
	}
	return v
}

func trimToAlnum(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r > 127 || !isAlnum(byte(r)) })
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
