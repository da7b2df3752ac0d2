package rollout

import (
	"fmt"
	"strings"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/kairosrelease"
)

// verdict is the outcome of checking a rebooted node against a Verification.
type verdict int

const (
	verdictPassed verdict = iota
	// verdictWaiting: the node has not reported on its running boot yet.
	verdictWaiting
	verdictFailed
)

// Labels the node labeler derives from KAIROS_VERSION and KAIROS_SOFTWARE_VERSION.
const (
	labelVersion         = "kairos.io/version"
	labelSoftwareVersion = "kairos.io/software-version"
)

// verify checks what a rebooted node reports against what v asks for. The text says what was
// found: why the node fails, what it waits for, or (passed) what was verified.
func verify(v *kairosv1alpha1.Verification, n Node) (string, verdict) {
	current := n.Reported.LabelledBootID != "" && n.Reported.LabelledBootID == n.BootID
	var checked []string
	if v.BootState != "" {
		if !current {
			return "the node labeler has not labelled the new boot", verdictWaiting
		}
		got := n.Reported.Labels[kairosv1alpha1.LabelBootState]
		if got != v.BootState {
			return bootStateProblem(got, v.BootState), verdictFailed
		}
		checked = append(checked, "booted "+got)
	}
	if v.JobReportedVersion {
		want := reportedVersion(n.Job)
		switch {
		case want.version == "":
			checked = append(checked, "version not checked: the Job reported none")
		case current && n.Reported.Labels[labelVersion] != "":
			got := versionFromLabels(n.Reported.Labels)
			if !want.matchesLabels(n.Reported.Labels) {
				return fmt.Sprintf("the node runs %s, not %s: it came back on the old version", got, want), verdictFailed
			}
			checked = append(checked, "runs "+want.String())
		case osImageMentions(n.Reported.OSImage, want.version):
			checked = append(checked, "runs "+want.version+" (from the OS image name)")
		case !current:
			return fmt.Sprintf("the node labeler has not labelled the new boot and the OS image %q does not name %s", n.Reported.OSImage, want.version), verdictWaiting
		default:
			return fmt.Sprintf("the node reports no Kairos version label and the OS image %q does not name %s", n.Reported.OSImage, want.version), verdictFailed
		}
	}
	return strings.Join(checked, ", "), verdictPassed
}

func bootStateProblem(got, want string) string {
	switch got {
	case "":
		return fmt.Sprintf("the node reports no boot state, expected %s (is the node labeler running there?)", want)
	case "passive":
		return fmt.Sprintf("the node booted the passive (fallback) system, not %s: the new system did not boot", want)
	}
	return fmt.Sprintf("the node booted the %s system, not %s", got, want)
}

// version is a Kairos version and the version of the Kubernetes distribution it carries.
type version struct{ version, software string }

func reportedVersion(job *JobState) version {
	if job == nil {
		return version{}
	}
	return version{version: job.Report[kairosrelease.KeyVersion], software: job.Report[kairosrelease.KeySoftwareVersion]}
}

func (v version) String() string {
	if v.software == "" {
		return v.version
	}
	return v.version + " (" + v.software + ")"
}

// matchesLabels compares with the labeler's labels, sanitised the same way the labeler does.
func (v version) matchesLabels(labels map[string]string) bool {
	if labels[labelVersion] != kairosrelease.LabelValue(v.version) {
		return false
	}
	return v.software == "" || labels[labelSoftwareVersion] == kairosrelease.LabelValue(v.software)
}

func versionFromLabels(labels map[string]string) string {
	return version{version: labels[labelVersion], software: labels[labelSoftwareVersion]}.String()
}

// osImageMentions reports whether the OS image name (PRETTY_NAME, such as
// "kairos-ubuntu-24.04 v3.4.2") carries version as a word of its own or as the start of one
// ("v3.4.2-k3sv1.32.4+k3s1"), so that v3.4.2 does not match v3.4.20.
func osImageMentions(osImage, version string) bool {
	for _, word := range strings.Fields(osImage) {
		if word == version || strings.HasPrefix(word, version+"-") || strings.HasPrefix(word, version+"+") {
			return true
		}
	}
	return false
}
