// Package kairosrelease reads the release files a Kairos system describes itself with
// (/etc/kairos-release, /etc/os-release) and turns their values into label values. The node
// labeler writes node labels with it and the NodeOp controller compares against them, so both
// sides sanitise the same way.
package kairosrelease

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Keys of a release file that name the installed Kairos version.
const (
	KeyVersion         = "KAIROS_VERSION"
	KeySoftwareVersion = "KAIROS_SOFTWARE_VERSION"
)

// Parse reads an os-release style file: KEY=VALUE lines, values optionally quoted. Blank lines,
// comments and lines without '=' are skipped.
func Parse(r io.Reader) (map[string]string, error) {
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
