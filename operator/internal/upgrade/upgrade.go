// Package upgrade turns a NodeOpUpgrade into the NodeOp that carries it out: the upgrade
// script, its preflight version check and the post-reboot verification.
package upgrade

import (
	_ "embed"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

var (
	//go:embed scripts/release.sh
	releaseFunctions string
	//go:embed scripts/upgrade.sh
	upgradeScript string
	//go:embed scripts/preflight.sh
	preflightScript string
)

// AlwaysExcluded are kept out of every upgrade: in the Job's container they are the pod's own
// files (written by the kubelet), not the image's, and would overwrite the node's.
var AlwaysExcluded = []string{"/etc/hostname", "/etc/hosts"}

// PreflightDeadlineSeconds bounds the preflight check. It includes pulling the upgrade image,
// which can take long on edge links; the Job then finds the image already pulled.
const PreflightDeadlineSeconds int64 = 1800

// Active and Recovery say which systems an upgrade installs, with the API defaults applied.
func Active(u *kairosv1alpha1.NodeOpUpgrade) bool   { return ptr.Deref(u.Spec.UpgradeActive, true) }
func Recovery(u *kairosv1alpha1.NodeOpUpgrade) bool { return ptr.Deref(u.Spec.UpgradeRecovery, false) }

// NodeOp builds the NodeOp that carries out u: same name and namespace, owned by u.
//
// Every node is cordoned and drained first. Upgrading the active system reboots the node into
// it and verifies that the node came back on the active system at the new version. A recovery-
// only upgrade neither reboots nor verifies: the node keeps running the same system.
func NodeOp(u *kairosv1alpha1.NodeOpUpgrade) *kairosv1alpha1.NodeOp {
	active := Active(u)
	op := &kairosv1alpha1.NodeOp{
		ObjectMeta: metav1.ObjectMeta{
			Name:      u.Name,
			Namespace: u.Namespace,
			Labels: map[string]string{
				kairosv1alpha1.LabelNodeOpUpgrade: u.Name,
				"app.kubernetes.io/managed-by":    "kairos-operator",
			},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(u, kairosv1alpha1.GroupVersion.WithKind("NodeOpUpgrade"))},
		},
		Spec: kairosv1alpha1.NodeOpSpec{
			NodeSelector:     u.Spec.NodeSelector.DeepCopy(),
			Image:            u.Spec.Image,
			ImagePullSecrets: append([]corev1.LocalObjectReference(nil), u.Spec.ImagePullSecrets...),
			Command:          Command(u),
			HostMountPath:    kairosv1alpha1.DefaultHostMountPath,
			Cordon:           true,
			DrainOptions:     &kairosv1alpha1.DrainOptions{Enabled: true, IgnoreDaemonSets: ptr.To(true)},
			RebootOnSuccess:  active,
			Preflight:        Preflight(u),
		},
	}
	if active {
		op.Spec.Verify = &kairosv1alpha1.Verification{BootState: "active", JobReportedVersion: true}
	}
	CopyPacing(u, op)
	return op
}

// CopyPacing copies the settings that may change while an upgrade runs onto its NodeOp and
// reports whether anything changed.
func CopyPacing(u *kairosv1alpha1.NodeOpUpgrade, op *kairosv1alpha1.NodeOp) bool {
	s := &op.Spec
	changed := s.Concurrency != u.Spec.Concurrency || s.StopOnFailure != u.Spec.StopOnFailure ||
		s.Paused != u.Spec.Paused || s.UncordonOnFailure != u.Spec.UncordonOnFailure
	s.Concurrency, s.StopOnFailure = u.Spec.Concurrency, u.Spec.StopOnFailure
	s.Paused, s.UncordonOnFailure = u.Spec.Paused, u.Spec.UncordonOnFailure
	return changed
}

// Command is the Job's command: the upgrade script with its options as arguments, so that
// excluded paths reach kairos-agent exactly as written, whatever characters they hold.
func Command(u *kairosv1alpha1.NodeOpUpgrade) []string {
	cmd := []string{"/bin/sh", "-c", releaseFunctions + upgradeScript, "upgrade"}
	if Active(u) {
		cmd = append(cmd, "--active")
	}
	if Recovery(u) {
		cmd = append(cmd, "--recovery")
	}
	if u.Spec.Debug {
		cmd = append(cmd, "--debug")
	}
	cmd = append(cmd, "--")
	cmd = append(cmd, AlwaysExcluded...)
	return append(cmd, u.Spec.ExcludePaths...)
}

// Preflight skips nodes already at the image's version. There is none with force, and none when
// the recovery system is upgraded too: the check reads the running (active) system's version,
// which says nothing about the recovery partition.
func Preflight(u *kairosv1alpha1.NodeOpUpgrade) *kairosv1alpha1.Preflight {
	if u.Spec.Force || Recovery(u) {
		return nil
	}
	return &kairosv1alpha1.Preflight{
		Command:               []string{"/bin/sh", "-c", releaseFunctions + preflightScript},
		ActiveDeadlineSeconds: ptr.To(PreflightDeadlineSeconds),
	}
}
