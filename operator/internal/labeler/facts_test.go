package labeler

import (
	"strings"
	"testing"

	"github.com/kairos-io/kubectl-kairos/operator/internal/kairosrelease"
)

func TestParseReleaseAndLabels(t *testing.T) {
	release, err := kairosrelease.Parse(strings.NewReader(`
# generated
KAIROS_VERSION="v3.4.2"
KAIROS_FLAVOR='opensuse'
KAIROS_FLAVOR_RELEASE=leap-15.6
KAIROS_VARIANT="standard"
KAIROS_MODEL="generic"
KAIROS_ARCH="amd64"
KAIROS_SOFTWARE_VERSION="v1.32.4+k3s1"
KAIROS_TRUSTED_BOOT="false"
KAIROS_FIPS=""
NAME="Kairos"
garbage line
`))
	if err != nil {
		t.Fatal(err)
	}
	got := Labels(release, "BOOT_IMAGE=/cOS/active.img root=LABEL=COS_STATE cos-img/filename=/cOS/active.img")
	want := map[string]string{
		"kairos.io/managed": "true", "kairos.io/boot-state": "active", "kairos.io/version": "v3.4.2",
		"kairos.io/flavor": "opensuse", "kairos.io/flavor-release": "leap-15.6", "kairos.io/variant": "standard",
		"kairos.io/model": "generic", "kairos.io/arch": "amd64", "kairos.io/software-version": "v1.32.4-k3s1",
		"kairos.io/trusted-boot": "false",
	}
	if len(got) != len(want) {
		t.Errorf("labels %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestBootState(t *testing.T) {
	cases := map[string]string{
		"root=LABEL=COS_STATE cos-img/filename=/cOS/active.img panic=5":              BootActive,
		"root=LABEL=COS_STATE cos-img/filename=/cOS/passive.img panic=5":             BootPassive,
		"root=LABEL=COS_RECOVERY cos-img/filename=/cOS/recovery.img":                 BootRecovery,
		"root=LABEL=COS_RECOVERY cos-img/filename=/cOS/recovery.squashfs":            BootRecovery,
		"root=live:CDLABEL=COS_LIVE rd.live.dir=/ rd.live.squashimg=rootfs.squashfs": BootLiveCD,
		"BOOT_IMAGE=/vmlinuz-6.1 root=/dev/sda1 ro":                                  BootUnknown,
	}
	for cmdline, want := range cases {
		if got := BootState(cmdline); got != want {
			t.Errorf("BootState(%q) = %q, want %q", cmdline, got, want)
		}
	}
}

func TestIsKairos(t *testing.T) {
	if !IsKairos(map[string]string{"ID": "kairos-opensuse-leap"}) || IsKairos(map[string]string{"ID": "ubuntu"}) {
		t.Error("IsKairos misjudges os-release IDs")
	}
}
