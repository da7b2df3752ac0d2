package nodeopupgrade_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/jobspec"
	"github.com/kairos-io/kubectl-kairos/operator/internal/manager/managertest"
	"github.com/kairos-io/kubectl-kairos/operator/internal/upgrade"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(managertest.RunTests(m, &env))
}

var seq atomic.Int32

// fixture is one test's namespace and its Kairos nodes (labelled suite=<label>).
type fixture struct {
	t     *testing.T
	ctx   context.Context
	ns    string
	label string
}

func newFixture(t *testing.T) *fixture {
	id := seq.Add(1)
	f := &fixture{t: t, ctx: context.Background(), ns: fmt.Sprintf("nopu-%d", id), label: fmt.Sprintf("u%d", id)}
	env.CreateNamespace(t, f.ns)
	return f
}

func (f *fixture) nodes(count int) []string {
	var names []string
	for i := range count {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-n%d", f.label, i), Labels: map[string]string{"suite": f.label}}}
		env.CreateReadyNode(f.ctx, f.t, n)
		names = append(names, n.Name)
	}
	return names
}

func (f *fixture) upgrade(name string, spec func(*kairosv1alpha1.NodeOpUpgradeSpec)) *kairosv1alpha1.NodeOpUpgrade {
	f.t.Helper()
	u := &kairosv1alpha1.NodeOpUpgrade{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns}}
	u.Spec.Image = "quay.io/kairos/ubuntu:24.04-standard-amd64-generic-v3.4.2"
	u.Spec.NodeSelector = &kairosv1alpha1.NodeSelector{MatchLabels: map[string]kairosv1alpha1.LabelValue{"suite": kairosv1alpha1.LabelValue(f.label)}}
	if spec != nil {
		spec(&u.Spec)
	}
	if err := env.Client.Create(f.ctx, u); err != nil {
		f.t.Fatal(err)
	}
	return u
}

func (f *fixture) eventually(what string, cond func() bool) {
	f.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			f.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (f *fixture) getUpgrade(name string) *kairosv1alpha1.NodeOpUpgrade {
	u := &kairosv1alpha1.NodeOpUpgrade{}
	if err := env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: name}, u); err != nil {
		f.t.Fatal(err)
	}
	return u
}

func (f *fixture) nodeOp(name string) *kairosv1alpha1.NodeOp {
	f.t.Helper()
	op := &kairosv1alpha1.NodeOp{}
	f.eventually("NodeOp "+name, func() bool {
		return env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: name}, op) == nil
	})
	return op
}

func (f *fixture) succeedJob(op *kairosv1alpha1.NodeOp, node string) {
	f.t.Helper()
	job := &batchv1.Job{}
	f.eventually("the Job of "+node, func() bool {
		return env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: jobspec.JobName(op, node)}, job) == nil
	})
	testenv.SucceedJobPod(f.ctx, f.t, env.Client, job, jobspec.CommandContainer, "")
}

func TestUpgradeCreatesItsNodeOpOnce(t *testing.T) {
	managertest.Start(t, env.Config)
	f := newFixture(t)
	f.nodes(1)
	u := f.upgrade("to-342", func(s *kairosv1alpha1.NodeOpUpgradeSpec) {
		s.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "registry"}}
		s.Concurrency, s.StopOnFailure, s.UncordonOnFailure = 2, true, true
		s.ExcludePaths = []string{"/etc/my data"}
		s.Paused = true // nothing in flight, so the NodeOp can be deleted at once below
	})
	op := f.nodeOp(u.Name)
	u = f.getUpgrade(u.Name)

	if !metav1.IsControlledBy(op, u) || op.Labels[kairosv1alpha1.LabelNodeOpUpgrade] != u.Name {
		t.Errorf("NodeOp owners %v labels %v: want controlled by and labelled with the upgrade", op.OwnerReferences, op.Labels)
	}
	s := op.Spec
	checks := map[string]bool{
		"image":             s.Image == u.Spec.Image,
		"imagePullSecrets":  len(s.ImagePullSecrets) == 1 && s.ImagePullSecrets[0].Name == "registry",
		"nodeSelector":      s.NodeSelector != nil && s.NodeSelector.MatchLabels["suite"] == kairosv1alpha1.LabelValue(f.label),
		"concurrency":       s.Concurrency == 2,
		"stopOnFailure":     s.StopOnFailure,
		"uncordonOnFailure": s.UncordonOnFailure,
		"cordon":            s.Cordon,
		"drain":             s.DrainOptions != nil && s.DrainOptions.Enabled && ptr.Deref(s.DrainOptions.IgnoreDaemonSets, false),
		"hostMountPath":     s.HostMountPath == "/host",
		"rebootOnSuccess":   s.RebootOnSuccess,
		"verify":            s.Verify != nil && s.Verify.BootState == "active" && s.Verify.JobReportedVersion,
		"preflight":         s.Preflight != nil,
		"paused":            s.Paused,
		"command":           slices.Equal(s.Command, upgrade.Command(u)) && slices.Contains(s.Command, "/etc/my data"),
	}
	for field, ok := range checks {
		if !ok {
			t.Errorf("NodeOp spec.%s does not carry the upgrade's settings: %+v", field, s)
		}
	}
	f.eventually("the upgrade to name its NodeOp", func() bool {
		st := f.getUpgrade(u.Name).Status
		return st.NodeOpName == u.Name && st.Phase != ""
	})

	// A NodeOp deleted under a running upgrade is not recreated: that would start it over.
	if err := env.Client.Delete(f.ctx, op); err != nil {
		t.Fatal(err)
	}
	f.eventually("the upgrade to fail over its deleted NodeOp", func() bool {
		st := f.getUpgrade(u.Name).Status
		return st.Phase == kairosv1alpha1.NodeOpFailed && contains(st.Message, "was deleted while the upgrade ran")
	})
	time.Sleep(300 * time.Millisecond) // give a wrong recreation time to happen
	if err := env.Client.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: u.Name}, &kairosv1alpha1.NodeOp{}); !apierrors.IsNotFound(err) {
		t.Errorf("the deleted NodeOp came back (get: %v)", err)
	}
}

func TestRecoveryOnlyUpgradeRunsToCompletionAndIsMirrored(t *testing.T) {
	managertest.Start(t, env.Config)
	f := newFixture(t)
	nodes := f.nodes(2)
	u := f.upgrade("recovery", func(s *kairosv1alpha1.NodeOpUpgradeSpec) {
		s.UpgradeActive, s.UpgradeRecovery = ptr.To(false), ptr.To(true)
		s.Concurrency, s.Paused = 1, true
	})
	op := f.nodeOp(u.Name)
	if op.Spec.RebootOnSuccess || op.Spec.Verify != nil || op.Spec.Preflight != nil {
		t.Errorf("recovery-only NodeOp: reboot %v verify %v preflight %v, want none", op.Spec.RebootOnSuccess, op.Spec.Verify, op.Spec.Preflight)
	}
	f.eventually("a paused upgrade mirrored as Pending with its targets", func() bool {
		st := f.getUpgrade(u.Name).Status
		return st.Phase == kairosv1alpha1.NodeOpPending && st.TotalNodes == 2 && len(st.NodeStatuses) == 2
	})

	// Pacing changes made on the upgrade reach the NodeOp.
	resume := f.getUpgrade(u.Name)
	patch := client.MergeFrom(resume.DeepCopy()) // no resourceVersion: the operator writes the status meanwhile
	resume.Spec.Paused, resume.Spec.Concurrency = false, 2
	if err := env.Client.Patch(f.ctx, resume, patch); err != nil {
		t.Fatal(err)
	}
	f.eventually("the NodeOp to be resumed with concurrency 2", func() bool {
		op := f.nodeOp(u.Name)
		return !op.Spec.Paused && op.Spec.Concurrency == 2
	})
	for _, n := range nodes {
		f.succeedJob(op, n)
	}
	f.eventually("the upgrade to complete", func() bool {
		st := f.getUpgrade(u.Name).Status
		return st.Phase == kairosv1alpha1.NodeOpCompleted && st.CompletedNodes == 2 && st.Progress == "2/2" &&
			st.NodeStatuses[nodes[1]].Phase == kairosv1alpha1.NodeCompleted && hasCondition(st.Conditions, kairosv1alpha1.ConditionComplete)
	})
	st := f.getUpgrade(u.Name).Status
	if st.ObservedGeneration != f.getUpgrade(u.Name).Generation || st.Message == "" {
		t.Errorf("observedGeneration %d (generation %d), message %q", st.ObservedGeneration, f.getUpgrade(u.Name).Generation, st.Message)
	}
}

func TestUpgradeLeavesAForeignNodeOpAlone(t *testing.T) {
	managertest.Start(t, env.Config)
	f := newFixture(t)
	f.nodes(1)
	foreign := &kairosv1alpha1.NodeOp{ObjectMeta: metav1.ObjectMeta{Name: "taken", Namespace: f.ns}}
	foreign.Spec.Command = []string{"true"}
	foreign.Spec.Paused = true
	if err := env.Client.Create(f.ctx, foreign); err != nil {
		t.Fatal(err)
	}
	f.upgrade("taken", func(s *kairosv1alpha1.NodeOpUpgradeSpec) { s.Concurrency = 3 })
	f.eventually("the upgrade to fail naming the taken NodeOp", func() bool {
		st := f.getUpgrade("taken").Status
		return st.Phase == kairosv1alpha1.NodeOpFailed && contains(st.Message, "already exists and does not belong to this NodeOpUpgrade")
	})
	if op := f.nodeOp("taken"); op.Spec.Concurrency != 0 || !op.Spec.Paused || len(op.OwnerReferences) != 0 {
		t.Errorf("the foreign NodeOp was changed: %+v", op.Spec)
	}
}

func hasCondition(conds []metav1.Condition, t string) bool {
	for _, c := range conds {
		if c.Type == t && c.Status == metav1.ConditionTrue {
			return true
		}
	}
	return false
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
