// Package bench measures the NodeOp rollout on the API tier with the real Job controller:
// `make bench` prints the figures. Nothing here runs in `make test`.
package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

const (
	benchNodes       = 200
	benchConcurrency = 10
)

// BenchmarkNodeOpRollout runs a 200-node NodeOp at concurrency 10 against kube-apiserver and
// kube-controller-manager's Job controller, with the operator as its own process. Each Job pod is
// marked succeeded as soon as it appears. It reports the time from a pod's success to the next
// node's Job creation (median, p99), the operator's CPU time and its API requests per node.
func BenchmarkNodeOpRollout(b *testing.B) {
	for range b.N {
		r := runRollout(b)
		b.ReportMetric(ms(r.median), "median-ms")
		b.ReportMetric(ms(r.p99), "p99-ms")
		b.ReportMetric(r.cpu.Seconds(), "operator-cpu-s")
		b.ReportMetric(r.requestsPerNode, "requests/node")
		b.ReportMetric(r.total.Seconds(), "rollout-s")
		b.Logf("%d nodes, concurrency %d: pod success -> next Job created: median %.1f ms, p99 %.1f ms, max %.1f ms; "+
			"rollout %.1f s; operator CPU %.2f s; %.1f API requests per node",
			benchNodes, benchConcurrency, ms(r.median), ms(r.p99), ms(r.max), r.total.Seconds(), r.cpu.Seconds(), r.requestsPerNode)
	}
}

type result struct {
	median, p99, max, total, cpu time.Duration
	requestsPerNode              float64
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func runRollout(b *testing.B) result {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	env, err := testenv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	// BENCH_LOGDIR=DIR keeps the operator's and kube-controller-manager's logs.
	dir := os.Getenv("BENCH_LOGDIR")
	if dir == "" {
		dir = b.TempDir()
	}
	kubeconfig, err := env.WriteAdminKubeconfig(dir)
	if err != nil {
		b.Fatal(err)
	}
	kcm, err := testenv.StartControllerManager(kubeconfig, filepath.Join(dir, "kcm.log"), "job-controller")
	if err != nil {
		b.Fatal(err)
	}
	defer kcm.Stop()

	operatorBin := filepath.Join(dir, "operator")
	build := exec.Command("go", "build", "-o", operatorBin, "./operator/cmd/operator")
	build.Dir = testenv.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build operator: %v\n%s", err, out)
	}
	metricsAddr, pprofAddr := freeAddr(b), freeAddr(b)
	operator, err := testenv.StartBinary(operatorBin, []string{
		"--metrics-bind-address=" + metricsAddr, "--metrics-secure=false",
		"--health-probe-bind-address=127.0.0.1:0", "--pprof-bind-address=" + pprofAddr,
	}, []string{"KUBECONFIG=" + kubeconfig}, filepath.Join(dir, "operator.log"))
	if err != nil {
		b.Fatal(err)
	}
	operatorStopped := false
	defer func() {
		if !operatorStopped {
			operator.Stop()
		}
	}()

	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		b.Fatal(err)
	}
	for i := range benchNodes {
		createNode(ctx, b, cs, fmt.Sprintf("bench-%03d", i))
	}
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}); err != nil {
		b.Fatal(err)
	}

	var mu sync.Mutex
	var successes, jobsCreated []time.Time
	podWatch, err := cs.CoreV1().Pods("bench").Watch(ctx, metav1.ListOptions{LabelSelector: kairosv1alpha1.LabelNodeOp})
	if err != nil {
		b.Fatal(err)
	}
	jobWatch, err := cs.BatchV1().Jobs("bench").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		for ev := range jobWatch.ResultChan() {
			if ev.Type == watch.Added {
				mu.Lock()
				jobsCreated = append(jobsCreated, time.Now())
				mu.Unlock()
			}
		}
	}()
	go func() {
		for ev := range podWatch.ResultChan() {
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok || ev.Type != watch.Added {
				continue
			}
			go func() {
				if err := succeed(ctx, cs, pod); err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				successes = append(successes, time.Now())
				mu.Unlock()
			}()
		}
	}()

	// BENCH_PROFILE=FILE saves a CPU profile of the operator during the rollout.
	if path := os.Getenv("BENCH_PROFILE"); path != "" {
		go saveProfile(b, pprofAddr, path)
	}
	start := time.Now()
	op := &kairosv1alpha1.NodeOp{ObjectMeta: metav1.ObjectMeta{Name: "bench", Namespace: "bench"}}
	op.Spec.Command = []string{"true"}
	op.Spec.Concurrency = benchConcurrency
	op.Spec.NodeSelector = &kairosv1alpha1.NodeSelector{MatchLabels: map[string]kairosv1alpha1.LabelValue{"bench": "true"}}
	if err := env.Client.Create(ctx, op); err != nil {
		b.Fatal(err)
	}
	for {
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(op), op); err != nil {
			b.Fatal(err)
		}
		if op.Status.Phase.Finished() {
			break
		}
		if ctx.Err() != nil {
			b.Fatalf("rollout did not finish: %s", op.Status.Message)
		}
		time.Sleep(50 * time.Millisecond)
	}
	total := time.Since(start)
	if op.Status.Phase != kairosv1alpha1.NodeOpCompleted {
		b.Fatalf("rollout ended %s: %s", op.Status.Phase, op.Status.Message)
	}
	requests := scrapeRequests(b, metricsAddr)
	cpu := operator.Stop()
	operatorStopped = true
	podWatch.Stop()
	jobWatch.Stop()

	mu.Lock()
	defer mu.Unlock()
	slices.SortFunc(successes, func(a, b time.Time) int { return a.Compare(b) })
	slices.SortFunc(jobsCreated, func(a, b time.Time) int { return a.Compare(b) })
	// Each success frees one slot: the k-th success lets the (concurrency+k)-th Job start.
	var gaps []time.Duration
	for k := 0; benchConcurrency+k < len(jobsCreated) && k < len(successes); k++ {
		gaps = append(gaps, jobsCreated[benchConcurrency+k].Sub(successes[k]))
	}
	if len(gaps) != benchNodes-benchConcurrency {
		b.Fatalf("measured %d gaps from %d successes and %d Jobs", len(gaps), len(successes), len(jobsCreated))
	}
	slices.Sort(gaps)
	return result{
		median: gaps[len(gaps)/2], p99: gaps[len(gaps)*99/100], max: gaps[len(gaps)-1],
		total: total, cpu: cpu, requestsPerNode: requests / benchNodes,
	}
}

func createNode(ctx context.Context, b *testing.B, cs kubernetes.Interface, name string) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"bench": "true"}}}
	created, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	created.Status.NodeInfo.BootID = "boot-1"
	created.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
}

// succeed plays the kubelet: the pod ran and succeeded.
func succeed(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod) error {
	now := metav1.Now()
	pod.Status.Phase = corev1.PodSucceeded
	pod.Status.StartTime = &now
	for _, c := range pod.Spec.Containers {
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed", StartedAt: now, FinishedAt: now}},
		})
	}
	_, err := cs.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	return err
}

// scrapeRequests sums the operator's rest_client_requests_total.
func scrapeRequests(b *testing.B, addr string) float64 {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "rest_client_requests_total{") {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
		if err == nil {
			sum += v
		}
	}
	return sum
}

func saveProfile(b *testing.B, addr, path string) {
	resp, err := http.Get("http://" + addr + "/debug/pprof/profile?seconds=30")
	if err != nil {
		b.Error(err)
		return
	}
	defer resp.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		b.Error(err)
		return
	}
	defer f.Close()
	_, _ = io.Copy(f, resp.Body)
}

func freeAddr(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
