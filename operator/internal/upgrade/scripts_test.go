package upgrade

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// sandbox stands in for a node: a host root, the upgrade image's root and fake kairos-agent and
// mount commands on PATH that record each call, one argument per line, calls separated by a
// line "--end--".
type sandbox struct {
	dir, host, image, bin, termLog string
}

const fakeRecorder = `#!/bin/sh
for a in "$@"; do printf '%s\n' "$a"; done >>"$CALLS_DIR/$(basename "$0")"
echo --end-- >>"$CALLS_DIR/$(basename "$0")"
[ -z "${FAIL_COMMAND:-}" ] || [ "$(basename "$0") $1 $2" != "$FAIL_COMMAND" ] || { echo "$FAIL_COMMAND failed" >&2; exit 3; }
`

func newSandbox(t *testing.T) *sandbox {
	dir := t.TempDir()
	s := &sandbox{
		dir: dir, host: filepath.Join(dir, "host"), image: filepath.Join(dir, "image"),
		bin: filepath.Join(dir, "bin"), termLog: filepath.Join(dir, "termination-log"),
	}
	for _, d := range []string{s.host + "/etc", s.image + "/etc", s.bin, dir + "/calls"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"kairos-agent", "mount"} {
		if err := os.WriteFile(filepath.Join(s.bin, name), []byte(fakeRecorder), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func (s *sandbox) write(t *testing.T, path, content string) {
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// run executes a command as the Job or preflight pod would, with the sandbox's roots.
func (s *sandbox) run(t *testing.T, command []string, extraEnv ...string) (string, error) {
	t.Helper()
	if command[0] != "/bin/sh" {
		t.Fatalf("command starts with %q, want /bin/sh", command[0])
	}
	cmd := exec.Command("sh", command[1:]...)
	cmd.Env = append(os.Environ(), "PATH="+s.bin+":"+os.Getenv("PATH"), "CALLS_DIR="+s.dir+"/calls",
		"HOST_DIR="+s.host, "IMAGE_ROOT="+s.image, "TERMINATION_LOG="+s.termLog)
	cmd.Env = append(cmd.Env, extraEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// calls returns the recorded invocations of a fake command.
func (s *sandbox) calls(t *testing.T, name string) [][]string {
	data, err := os.ReadFile(filepath.Join(s.dir, "calls", name))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var calls [][]string
	var cur []string
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "--end--" {
			calls = append(calls, cur)
			cur = nil
			continue
		}
		cur = append(cur, line)
	}
	return calls
}

func (s *sandbox) terminationMessage(t *testing.T) string {
	data, err := os.ReadFile(s.termLog)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func upgradeOf(mod func(*kairosv1alpha1.NodeOpUpgradeSpec)) *kairosv1alpha1.NodeOpUpgrade {
	u := &kairosv1alpha1.NodeOpUpgrade{}
	u.Name, u.Namespace = "up", "default"
	u.Spec.Image = "quay.io/kairos/ubuntu:24.04-standard-amd64-generic-v3.4.2-k3sv1.32.4-k3s1"
	if mod != nil {
		mod(&u.Spec)
	}
	return u
}

const imageRelease = `KAIROS_VERSION="v3.4.2"
KAIROS_SOFTWARE_VERSION="v1.32.4+k3s1"
KAIROS_SOFTWARE_VERSION_PREFIX="k3s"
`

func agentCall(extra ...string) []string {
	return append([]string{"upgrade"}, extra...)
}

func TestUpgradeScriptRunsKairosAgent(t *testing.T) {
	keep := []string{"--exclude-path", "/etc/hostname", "--exclude-path", "/etc/hosts"}
	cases := []struct {
		name string
		spec func(*kairosv1alpha1.NodeOpUpgradeSpec)
		want [][]string
	}{
		{
			name: "active only (the default)",
			want: [][]string{append(agentCall("--source", "dir:/"), keep...)},
		},
		{
			name: "recovery only",
			spec: func(s *kairosv1alpha1.NodeOpUpgradeSpec) {
				s.UpgradeActive, s.UpgradeRecovery = ptr.To(false), ptr.To(true)
			},
			want: [][]string{append(agentCall("--recovery", "--source", "dir:/"), keep...)},
		},
		{
			name: "both: recovery first",
			spec: func(s *kairosv1alpha1.NodeOpUpgradeSpec) { s.UpgradeRecovery = ptr.To(true) },
			want: [][]string{
				append(agentCall("--recovery", "--source", "dir:/"), keep...),
				append(agentCall("--source", "dir:/"), keep...),
			},
		},
		{
			name: "debug goes before the subcommand",
			spec: func(s *kairosv1alpha1.NodeOpUpgradeSpec) { s.Debug = true },
			want: [][]string{append([]string{"--debug", "upgrade", "--source", "dir:/"}, keep...)},
		},
		{
			name: "force changes nothing in the Job",
			spec: func(s *kairosv1alpha1.NodeOpUpgradeSpec) { s.Force = true },
			want: [][]string{append(agentCall("--source", "dir:/"), keep...)},
		},
		{
			name: "excluded paths stay one argument each, whatever they hold",
			spec: func(s *kairosv1alpha1.NodeOpUpgradeSpec) {
				s.ExcludePaths = []string{"/var/lib/my data", `/etc/it's "quoted"`, "/opt/$(reboot)", "/x;y*"}
			},
			want: [][]string{append(append(agentCall("--source", "dir:/"), keep...),
				"--exclude-path", "/var/lib/my data", "--exclude-path", `/etc/it's "quoted"`,
				"--exclude-path", "/opt/$(reboot)", "--exclude-path", "/x;y*")},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			s.write(t, s.image+"/etc/kairos-release", imageRelease)
			out, err := s.run(t, Command(upgradeOf(tc.spec)))
			if err != nil {
				t.Fatalf("upgrade script: %v\n%s", err, out)
			}
			if got := s.calls(t, "kairos-agent"); !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("kairos-agent calls:\n%q\nwant\n%q", got, tc.want)
			}
			wantMounts := [][]string{{"--rbind", s.host + "/dev", "/dev"}, {"--rbind", s.host + "/run", "/run"}}
			if got := s.calls(t, "mount"); !slices.EqualFunc(got, wantMounts, slices.Equal) {
				t.Errorf("mount calls %q, want %q", got, wantMounts)
			}
			if got, want := s.terminationMessage(t), "KAIROS_VERSION=v3.4.2\nKAIROS_SOFTWARE_VERSION=v1.32.4+k3s1\n"; got != want {
				t.Errorf("report %q, want %q", got, want)
			}
		})
	}
}

func TestUpgradeScriptFailsLoudly(t *testing.T) {
	s := newSandbox(t)
	u := upgradeOf(func(s *kairosv1alpha1.NodeOpUpgradeSpec) { s.UpgradeRecovery = ptr.To(true) })
	out, err := s.run(t, Command(u), "FAIL_COMMAND=kairos-agent upgrade --recovery")
	if err == nil {
		t.Fatalf("a failing kairos-agent did not fail the script:\n%s", out)
	}
	if calls := s.calls(t, "kairos-agent"); len(calls) != 1 {
		t.Errorf("the active system was upgraded after the recovery upgrade failed: %q", calls)
	}

	s = newSandbox(t)
	out, err = s.run(t, Command(upgradeOf(nil)), "FAIL_COMMAND=mount --rbind "+s.host+"/dev")
	if err == nil || len(s.calls(t, "kairos-agent")) != 0 {
		t.Fatalf("kairos-agent ran although binding /dev failed (err %v):\n%s", err, out)
	}
}

func TestUpgradeScriptReportsNothingForAnImageWithoutVersion(t *testing.T) {
	s := newSandbox(t)
	s.write(t, s.image+"/etc/os-release", "ID=ubuntu\n")
	if out, err := s.run(t, Command(upgradeOf(nil))); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if msg := s.terminationMessage(t); msg != "" {
		t.Errorf("report %q, want none", msg)
	}
}

func TestPreflightSkipsNodesAtTheTargetVersion(t *testing.T) {
	cases := []struct {
		name, hostKairos, hostOS, imageKairos, imageOS string
		skip                                           string
	}{
		{name: "same version", hostKairos: imageRelease, imageKairos: imageRelease, skip: "already at v3.4.2-k3sv1.32.4+k3s1\n"},
		{name: "older host", hostKairos: strings.Replace(imageRelease, "v3.4.2", "v3.4.1", 1), imageKairos: imageRelease},
		{name: "same Kairos, other k3s", hostKairos: strings.Replace(imageRelease, "v1.32.4", "v1.31.9", 1), imageKairos: imageRelease},
		{name: "host version from os-release", hostOS: "ID=kairos\n" + imageRelease, imageKairos: imageRelease, skip: "already at v3.4.2-k3sv1.32.4+k3s1\n"},
		{name: "image version from os-release", hostKairos: imageRelease, imageOS: imageRelease, skip: "already at v3.4.2-k3sv1.32.4+k3s1\n"},
		{name: "kairos-release without a version falls back", hostKairos: "KAIROS_FLAVOR=ubuntu\n", hostOS: imageRelease, imageKairos: imageRelease, skip: "already at v3.4.2-k3sv1.32.4+k3s1\n"},
		{name: "host version missing", imageKairos: imageRelease},
		{name: "both missing never match", hostOS: "ID=ubuntu\n", imageOS: "ID=ubuntu\n"},
		{name: "without software version", hostKairos: "KAIROS_VERSION=v3.4.2\n", imageKairos: "KAIROS_VERSION='v3.4.2'\n", skip: "already at v3.4.2\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSandbox(t)
			for path, content := range map[string]string{
				s.host + "/etc/kairos-release": tc.hostKairos, s.host + "/etc/os-release": tc.hostOS,
				s.image + "/etc/kairos-release": tc.imageKairos, s.image + "/etc/os-release": tc.imageOS,
			} {
				if content != "" {
					s.write(t, path, content)
				}
			}
			out, err := s.run(t, Preflight(upgradeOf(nil)).Command)
			if err != nil {
				t.Fatalf("preflight: %v\n%s", err, out)
			}
			if got := s.terminationMessage(t); got != tc.skip {
				t.Errorf("termination message %q, want %q (output %s)", got, tc.skip, out)
			}
		})
	}
}
