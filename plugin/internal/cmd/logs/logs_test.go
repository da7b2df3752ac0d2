package logs

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/kube"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/plugintest"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(m, &env))
}

// fakeSource serves known lines per pod/container; followed logs stay open until ctx ends, as
// a running container's do.
type fakeSource struct{ lines map[string]string }

func (f fakeSource) Open(ctx context.Context, _, pod, container string, follow bool) (io.ReadCloser, error) {
	text, ok := f.lines[pod+"/"+container]
	if !ok {
		return nil, fmt.Errorf("no log for %s/%s", pod, container)
	}
	if !follow {
		return io.NopCloser(strings.NewReader(text)), nil
	}
	r, w := io.Pipe()
	go func() {
		_, _ = io.WriteString(w, text)
		<-ctx.Done()
		w.Close()
	}()
	return r, nil
}

// jobPod creates a pod as the Job controller would for op on node: the user's command as init
// container (done), the reboot sentinel as container (done or running).
func jobPod(t *testing.T, ns, op, node string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: op + "-" + node, Namespace: ns, Labels: map[string]string{
			kairosv1alpha1.LabelNodeOp: op, kairosv1alpha1.LabelNode: node,
		}},
		Spec: corev1.PodSpec{NodeName: node,
			InitContainers: []corev1.Container{{Name: "nodeop", Image: "busybox"}},
			Containers:     []corev1.Container{{Name: "request-reboot", Image: "busybox"}}},
	}
	if err := env.Client.Create(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	pod.Status.Phase = corev1.PodRunning
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "nodeop", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{StartedAt: now, FinishedAt: now}}}}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "request-reboot", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}
	if err := env.Client.Status().Update(context.Background(), pod); err != nil {
		t.Fatal(err)
	}
}

func setup(t *testing.T, ns string) (*Options, *plugintest.Buffer) {
	t.Helper()
	env.CreateNamespace(t, ns)
	kubeconfig, err := env.WriteAdminKubeconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := &plugintest.Buffer{}
	o := NewOptions(plugintest.Flags(kubeconfig, ns), genericiooptions.IOStreams{Out: out, ErrOut: out})
	o.Source = fakeSource{lines: map[string]string{
		"up-node-a/nodeop": "upgrading node-a\ndone\n", "up-node-a/request-reboot": "reboot requested\n",
		"up-node-b/nodeop": "upgrading node-b\n", "up-node-b/request-reboot": "reboot requested\n",
		"up-node-c/nodeop": "upgrading node-c\n", "up-node-c/request-reboot": "reboot requested\n",
		"other-node-a/nodeop": "not ours\n", "other-node-a/request-reboot": "not ours\n",
	}}
	return o, out
}

func TestLogsPrefixEveryLineWithItsNode(t *testing.T) {
	ns := testenv.UniqueName("logs-all")
	o, out := setup(t, ns)
	jobPod(t, ns, "up", "node-b")
	jobPod(t, ns, "up", "node-a")
	jobPod(t, ns, "other", "node-a")
	if err := o.Complete([]string{"nop/up"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "[node-a] upgrading node-a\n[node-a] done\n[node-a] reboot requested\n" +
		"[node-b] upgrading node-b\n[node-b] reboot requested\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}

	o.Node = "node-b"
	out.Reset()
	if err := o.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "[node-b] upgrading node-b\n[node-b] reboot requested\n" {
		t.Errorf("--node node-b printed:\n%s", got)
	}
}

func TestLogsFollowPicksUpNewNodes(t *testing.T) {
	ns := testenv.UniqueName("logs-follow")
	o, out := setup(t, ns)
	jobPod(t, ns, "up", "node-a")
	o.Follow = true
	if err := o.Complete([]string{"up"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- o.Run(ctx) }()
	out.WaitFor(t, "[node-a] upgrading node-a")
	jobPod(t, ns, "up", "node-c") // the rollout reaches another node
	out.WaitFor(t, "[node-c] upgrading node-c")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("following ended with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("following did not stop")
	}
	if strings.Contains(out.String(), "not ours") {
		t.Error("printed another operation's logs")
	}
}

func TestLogsWithoutPodsSaysWhy(t *testing.T) {
	ns := testenv.UniqueName("logs-none")
	o, _ := setup(t, ns)
	if err := o.Complete([]string{"nop/up"}); err != nil {
		t.Fatal(err)
	}
	err := o.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no pods") || !strings.Contains(err.Error(), "kubectl kairos status") {
		t.Fatalf("got %v", err)
	}
}

// closingWatches ends every watch it opens after two events, as an API server ends long
// watches; the follower must open a new one and not print a container twice.
type closingWatches struct {
	client.WithWatch
	opened atomic.Int32
}

func (c *closingWatches) Watch(ctx context.Context, list client.ObjectList, opts ...client.ListOption) (watch.Interface, error) {
	w, err := c.WithWatch.Watch(ctx, list, opts...)
	if err != nil {
		return nil, err
	}
	c.opened.Add(1)
	out := make(chan watch.Event)
	go func() {
		defer close(out)
		defer w.Stop()
		for range 2 {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					return
				}
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return watch.NewProxyWatcher(out), nil
}

func TestLogsFollowSurvivesTheAPIServerEndingWatches(t *testing.T) {
	ns := testenv.UniqueName("logs-rewatch")
	o, out := setup(t, ns)
	jobPod(t, ns, "up", "node-a")
	o.Follow = true
	if err := o.Complete([]string{"up"}); err != nil {
		t.Fatal(err)
	}
	c, _, err := kube.Client(o.configFlags)
	if err != nil {
		t.Fatal(err)
	}
	closing := &closingWatches{WithWatch: c}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- o.follow(ctx, closing, ns) }()
	out.WaitFor(t, "[node-a] upgrading node-a")
	jobPod(t, ns, "up", "node-c") // arrives on a later watch
	out.WaitFor(t, "[node-c] upgrading node-c")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := closing.opened.Load(); n < 2 {
		t.Errorf("opened %d watches, want the follower to reopen ended ones", n)
	}
	if strings.Count(out.String(), "[node-a] upgrading node-a") != 1 {
		t.Errorf("a container was streamed twice:\n%s", out)
	}
}
