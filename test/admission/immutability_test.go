package admission

import (
	"context"
	"strings"
	"testing"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
)

// edit fetches obj fresh, applies change and updates it, so that each case starts from what the
// API server has.
func edit[T client.Object](t *testing.T, obj T, change func(T)) error {
	t.Helper()
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	change(obj)
	return env.Client.Update(context.Background(), obj)
}

func expectRefused(t *testing.T, err error, field string) {
	t.Helper()
	if err == nil {
		t.Fatalf("edit of %s accepted, want refused", field)
	}
	for _, w := range []string{"spec." + field, "cannot be changed", "create a new"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not mention %q: %v", w, err)
		}
	}
}

func expectAccepted(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil {
		t.Fatalf("edit of %s refused: %v", what, err)
	}
}

func TestNodeOpIsOneShot(t *testing.T) {
	ns := newNamespace(t)
	op := &kairosv1alpha1.NodeOp{}
	op.Name, op.Namespace = "one-shot", ns
	op.Spec.Command = []string{"sh", "-c", "echo hi"}
	op.Spec.Concurrency = 1
	if err := env.Client.Create(context.Background(), op); err != nil {
		t.Fatal(err)
	}

	// What is done cannot change.
	expectRefused(t, edit(t, op, func(o *kairosv1alpha1.NodeOp) { o.Spec.Command = []string{"reboot"} }), "command")
	expectRefused(t, edit(t, op, func(o *kairosv1alpha1.NodeOp) { o.Spec.Image = "alpine" }), "image")
	expectRefused(t, edit(t, op, func(o *kairosv1alpha1.NodeOp) {
		o.Spec.NodeSelector = &kairosv1alpha1.NodeSelector{MatchLabels: map[string]kairosv1alpha1.LabelValue{"a": "b"}}
	}), "nodeSelector")
	expectRefused(t, edit(t, op, func(o *kairosv1alpha1.NodeOp) { o.Spec.HostMountPath = "/rootfs" }), "hostMountPath")
	expectRefused(t, edit(t, op, func(o *kairosv1alpha1.NodeOp) { o.Spec.Cordon = true }), "cordon")
	expectRefused(t, edit(t, op, func(o *kairosv1alpha1.NodeOp) { o.Spec.RebootOnSuccess = true }), "rebootOnSuccess")
	expectRefused(t, edit(t, op, func(o *kairosv1alpha1.NodeOp) {
		o.Spec.DrainOptions = &kairosv1alpha1.DrainOptions{Force: true}
	}), "drainOptions")

	// Pacing can.
	expectAccepted(t, edit(t, op, func(o *kairosv1alpha1.NodeOp) { o.Spec.Concurrency = 5 }), "concurrency")
	expectAccepted(t, edit(t, op, func(o *kairosv1alpha1.NodeOp) { o.Spec.StopOnFailure = true }), "stopOnFailure")
	expectAccepted(t, edit(t, op, func(o *kairosv1alpha1.NodeOp) { o.Spec.Paused = true }), "paused")
	expectAccepted(t, edit(t, op, func(o *kairosv1alpha1.NodeOp) { o.Spec.UncordonOnFailure = true }), "uncordonOnFailure")
	expectAccepted(t, edit(t, op, func(o *kairosv1alpha1.NodeOp) { o.Spec.BackoffLimit = ptr.To[int32](1) }), "backoffLimit")

	// The operator's status writes are not edits of the spec.
	op.Status.Phase = kairosv1alpha1.NodeOpRunning
	if err := env.Client.Status().Update(context.Background(), op); err != nil {
		t.Fatalf("status update refused: %v", err)
	}
}

func TestNodeOpUpgradeIsOneShot(t *testing.T) {
	ns := newNamespace(t)
	up := &kairosv1alpha1.NodeOpUpgrade{}
	up.Name, up.Namespace = "one-shot", ns
	up.Spec.Image = goodImage
	up.Spec.ExcludePaths = []string{"/etc/keep me"}
	if err := env.Client.Create(context.Background(), up); err != nil {
		t.Fatal(err)
	}

	expectRefused(t, edit(t, up, func(u *kairosv1alpha1.NodeOpUpgrade) { u.Spec.Image = "quay.io/kairos/other:v9" }), "image")
	expectRefused(t, edit(t, up, func(u *kairosv1alpha1.NodeOpUpgrade) { u.Spec.UpgradeRecovery = ptr.To(true) }), "upgradeRecovery")
	expectRefused(t, edit(t, up, func(u *kairosv1alpha1.NodeOpUpgrade) { u.Spec.Force = true }), "force")
	expectRefused(t, edit(t, up, func(u *kairosv1alpha1.NodeOpUpgrade) { u.Spec.ExcludePaths = nil }), "excludePaths")
	expectRefused(t, edit(t, up, func(u *kairosv1alpha1.NodeOpUpgrade) {
		u.Spec.NodeSelector = &kairosv1alpha1.NodeSelector{MatchLabels: map[string]kairosv1alpha1.LabelValue{"a": "b"}}
	}), "nodeSelector")

	expectAccepted(t, edit(t, up, func(u *kairosv1alpha1.NodeOpUpgrade) { u.Spec.Concurrency = 3 }), "concurrency")
	expectAccepted(t, edit(t, up, func(u *kairosv1alpha1.NodeOpUpgrade) { u.Spec.StopOnFailure = true }), "stopOnFailure")
	expectAccepted(t, edit(t, up, func(u *kairosv1alpha1.NodeOpUpgrade) { u.Spec.Paused = true }), "paused")
}

func TestOSArtifactIsImmutable(t *testing.T) {
	ns := newNamespace(t)
	art := &kairosv1alpha2.OSArtifact{}
	art.Name, art.Namespace = "build", ns
	art.Spec.ImageName = "quay.io/kairos/opensuse:leap-15.6-core-amd64-generic-v3.6.0"
	art.Spec.ISO = true
	if err := env.Client.Create(context.Background(), art); err != nil {
		t.Fatal(err)
	}
	err := edit(t, art, func(a *kairosv1alpha2.OSArtifact) { a.Spec.CloudImage = true })
	if err == nil || !strings.Contains(err.Error(), "create a new OSArtifact") {
		t.Fatalf("edit of an OSArtifact spec: got %v, want refused", err)
	}
	expectAccepted(t, edit(t, art, func(a *kairosv1alpha2.OSArtifact) { a.Labels = map[string]string{"team": "edge"} }), "labels")
}
