package labeler

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(m, &env))
}

// fakeHost writes a host's /etc files and kernel command line into a temporary directory.
func fakeHost(t *testing.T, files map[string]string, cmdline string) (etc, cmdlinePath string) {
	dir := t.TempDir()
	etc = filepath.Join(dir, "etc")
	if err := os.MkdirAll(etc, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(etc, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmdlinePath = filepath.Join(dir, "cmdline")
	if err := os.WriteFile(cmdlinePath, []byte(cmdline), 0o644); err != nil {
		t.Fatal(err)
	}
	return etc, cmdlinePath
}

func TestSyncLabelsAKairosNodeAndCleansUp(t *testing.T) {
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(env.Config)
	name := testenv.UniqueName("kairos")
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		"team": "edge", "kairos.io/fips": "true", "kairos.io/custom": "mine",
	}}}
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	etc, cmdline := fakeHost(t, map[string]string{
		"kairos-release": "KAIROS_VERSION=\"v3.4.2\"\nKAIROS_FLAVOR=\"ubuntu\"\nKAIROS_SOFTWARE_VERSION=\"v1.32.4+k3s1\"\n",
	}, "root=LABEL=COS_STATE cos-img/filename=/cOS/passive.img")
	bootID := filepath.Join(t.TempDir(), "boot_id")
	if err := os.WriteFile(bootID, []byte("boot-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &Labeler{Client: cs, NodeName: name, EtcDir: etc, CmdlinePath: cmdline, BootIDPath: bootID}
	if err := l.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"kairos.io/managed": "true", "kairos.io/version": "v3.4.2", "kairos.io/flavor": "ubuntu",
		"kairos.io/software-version": "v1.32.4-k3s1", "kairos.io/boot-state": "passive",
		"team": "edge", "kairos.io/custom": "mine", // not ours: left alone
	}
	for k, v := range want {
		if got.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, got.Labels[k], v)
		}
	}
	if _, stale := got.Labels["kairos.io/fips"]; stale {
		t.Error("the stale kairos.io/fips label was kept")
	}
	if stamp := got.Annotations["kairos.io/labelled-boot-id"]; stamp != "boot-1" {
		t.Errorf("labelled-boot-id = %q, want boot-1", stamp)
	}

	// Nothing changed: nothing is written.
	rv := got.ResourceVersion
	if err := l.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if again, _ := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); again.ResourceVersion != rv {
		t.Error("a sync without changes wrote to the node")
	}

	// After a reboot the stamp follows the new boot, even when no label changed.
	if err := os.WriteFile(bootID, []byte("boot-2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := l.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if again, _ := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{}); again.Annotations["kairos.io/labelled-boot-id"] != "boot-2" {
		t.Errorf("after a reboot labelled-boot-id = %q, want boot-2", again.Annotations["kairos.io/labelled-boot-id"])
	}
}

func TestSyncRemovesOwnLabelsFromANonKairosNode(t *testing.T) {
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(env.Config)
	name := testenv.UniqueName("ubuntu")
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		"kairos.io/managed": "true", "kairos.io/version": "v3.0.0", "team": "edge",
	}, Annotations: map[string]string{"kairos.io/labelled-boot-id": "old"}}}
	if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	etc, cmdline := fakeHost(t, map[string]string{"os-release": "ID=ubuntu\nVERSION_ID=\"24.04\"\n"}, "root=/dev/sda1")
	l := &Labeler{Client: cs, NodeName: name, EtcDir: etc, CmdlinePath: cmdline}
	if err := l.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if _, ok := got.Labels["kairos.io/managed"]; ok || got.Labels["team"] != "edge" {
		t.Errorf("labels %v: want kairos.io/* of ours gone, team kept", got.Labels)
	}
	if _, ok := got.Annotations["kairos.io/labelled-boot-id"]; ok {
		t.Error("a node that is not Kairos kept the labelled-boot-id stamp")
	}
}

func TestKairosDetectedFromOSRelease(t *testing.T) {
	etc, cmdline := fakeHost(t, map[string]string{"os-release": "ID=\"kairos-alpine\"\nKAIROS_VERSION=v3.1.0\n"}, "")
	labels, err := (&Labeler{EtcDir: etc, CmdlinePath: cmdline}).Desired()
	if err != nil {
		t.Fatal(err)
	}
	if labels["kairos.io/managed"] != "true" || labels["kairos.io/version"] != "v3.1.0" || labels["kairos.io/boot-state"] != "unknown" {
		t.Errorf("labels %v", labels)
	}
}
