package nodeop_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// TestRestartSafety stops the operator at many points of a 30-node rollout (cordon, Job, verified
// reboot, uncordon) and starts a new one each time. Watchers independent of the operator check
// that no node ever gets a second Job and that the nodes cordoned by the NodeOp (its nodes in
// flight) never exceed the concurrency; the rollout must still complete.
func TestRestartSafety(t *testing.T) {
	const nodeCount, concurrency = 30, 3
	f := newFixture(t)
	nodes := f.nodes("r", nodeCount)
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(f.ctx)
	defer cancel()

	op := f.nodeOp("restarts", func(s *kairosv1alpha1.NodeOpSpec) {
		s.Concurrency, s.Cordon, s.RebootOnSuccess, s.Paused = concurrency, true, true, true
	})
	// Watch before anything starts, so that no event is missed.
	jobWatch, err := cs.BatchV1().Jobs(f.ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nodeWatch, err := cs.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{LabelSelector: "suite=" + f.label})
	if err != nil {
		t.Fatal(err)
	}
	v := &violations{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); v.checkJobs(ctx, jobWatch) }()
	go func() { defer wg.Done(); v.checkCordons(ctx, nodeWatch, concurrency) }()

	stop := startOperator(t)
	f.eventually("targets recorded", func() bool { return f.get(op).Status.TotalNodes == nodeCount })
	unpause(f, op)

	restarts := 0
	deadline := time.Now().Add(4 * time.Minute)
	for f.get(op).Status.Phase != kairosv1alpha1.NodeOpCompleted {
		if time.Now().After(deadline) {
			t.Fatalf("rollout did not complete after %d restarts: %s", restarts, f.get(op).Status.Message)
		}
		time.Sleep(time.Duration(20+rand.IntN(300)) * time.Millisecond)
		stop()
		restarts++
		stop = startOperator(t)
	}
	stop()
	cancel()
	wg.Wait()

	v.mu.Lock()
	defer v.mu.Unlock()
	for _, msg := range v.found {
		t.Error(msg)
	}
	if len(v.jobUIDs) != nodeCount {
		t.Errorf("%d nodes got Jobs, want %d", len(v.jobUIDs), nodeCount)
	}
	if v.maxCordoned != concurrency {
		t.Errorf("at most %d nodes were cordoned at once; want the concurrency, %d, to be reached", v.maxCordoned, concurrency)
	}
	if restarts < 10 {
		t.Errorf("only %d restarts during the rollout; the test proves little", restarts)
	}
	for _, n := range nodes {
		if f.getNode(n).Spec.Unschedulable {
			t.Errorf("node %s left cordoned", n)
		}
	}
	t.Logf("rollout of %d nodes completed across %d operator restarts; at most %d cordoned at once", nodeCount, restarts, v.maxCordoned)
}

type violations struct {
	mu          sync.Mutex
	found       []string
	jobUIDs     map[string]string // Job name -> UID of its first creation
	maxCordoned int
}

func (v *violations) add(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.found = append(v.found, fmt.Sprintf(format, args...))
}

// checkJobs records every Job creation and plays the Job controller, kubelet and node: each
// Job's pod succeeds, then the node reboots (new boot ID) a little later.
func (v *violations) checkJobs(ctx context.Context, w watch.Interface) {
	v.jobUIDs = map[string]string{}
	forEachEvent(ctx, w, func(ev watch.Event) {
		job, isJob := ev.Object.(*batchv1.Job)
		if !isJob || ev.Type != watch.Added {
			return
		}
		v.mu.Lock()
		first, seen := v.jobUIDs[job.Name]
		if !seen {
			v.jobUIDs[job.Name] = string(job.UID)
		}
		v.mu.Unlock()
		if seen && first != string(job.UID) {
			v.add("node %s got a second Job %s", job.Spec.Template.Spec.NodeName, job.Name)
		}
		go v.runNode(ctx, job)
	})
}

// forEachEvent hands every event of w to fn until ctx ends or the watch closes.
func forEachEvent(ctx context.Context, w watch.Interface, fn func(watch.Event)) {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok {
				return
			}
			fn(ev)
		}
	}
}

func (v *violations) runNode(ctx context.Context, job *batchv1.Job) {
	time.Sleep(time.Duration(rand.IntN(100)) * time.Millisecond)
	if ctx.Err() != nil {
		return
	}
	rec := &errRecorder{}
	succeedJobPod(ctx, rec, job, "")
	time.Sleep(time.Duration(rand.IntN(100)) * time.Millisecond)
	node := &corev1.Node{}
	if err := env.Client.Get(ctx, client.ObjectKey{Name: job.Spec.Template.Spec.NodeName}, node); err != nil {
		rec.Errorf("get node: %v", err)
	} else {
		node.Status.NodeInfo.BootID = "boot-after-" + job.Name
		if err := env.Client.Status().Update(ctx, node); err != nil {
			rec.Errorf("reboot node: %v", err)
		}
	}
	if rec.err != "" && ctx.Err() == nil {
		v.add("simulating node %s: %s", job.Spec.Template.Spec.NodeName, rec.err)
	}
}

// checkCordons tracks which nodes carry a cordon of ours: never more than the concurrency.
func (v *violations) checkCordons(ctx context.Context, w watch.Interface, concurrency int) {
	cordoned := map[string]bool{}
	forEachEvent(ctx, w, func(ev watch.Event) {
		node, isNode := ev.Object.(*corev1.Node)
		if !isNode {
			return
		}
		cordoned[node.Name] = node.Annotations[kairosv1alpha1.AnnotationCordonedBy] != ""
		n := 0
		for _, c := range cordoned {
			if c {
				n++
			}
		}
		v.mu.Lock()
		v.maxCordoned = max(v.maxCordoned, n)
		v.mu.Unlock()
		if n > concurrency {
			v.add("%d nodes cordoned at once, concurrency is %d", n, concurrency)
		}
	})
}

// errRecorder lets the test helpers report from a goroutine other than the test's.
type errRecorder struct {
	testing.TB
	err string
}

func (e *errRecorder) Helper()                           {}
func (e *errRecorder) Errorf(format string, args ...any) { e.err = fmt.Sprintf(format, args...) }
func (e *errRecorder) Fatal(args ...any)                 { e.err = fmt.Sprint(args...) }
