package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// WriteAdminKubeconfig writes a kubeconfig for a cluster-admin user of the test API server, for
// processes started next to it (kube-controller-manager, the operator binary, kubectl).
func (e *Env) WriteAdminKubeconfig(dir string) (string, error) {
	user, err := e.env.AddUser(envtest.User{Name: "kairos-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return "", fmt.Errorf("add admin user: %w", err)
	}
	data, err := user.KubeConfig()
	if err != nil {
		return "", fmt.Errorf("render kubeconfig: %w", err)
	}
	path := filepath.Join(dir, "kubeconfig")
	return path, os.WriteFile(path, data, 0o600)
}

// Process is a control-plane component started next to the test API server.
type Process struct {
	cmd  *exec.Cmd
	done chan error
}

// StartControllerManager runs kube-controller-manager with the given controllers (for example
// job-controller and garbage-collector-controller), so that Jobs get real pods.
func StartControllerManager(kubeconfig, logFile string, controllers ...string) (*Process, error) {
	bin := filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kube-controller-manager")
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--use-service-account-credentials=false",
		"--controllers=" + strings.Join(controllers, ","),
		"--bind-address=127.0.0.1",
		"--secure-port=0",
		// Jobs are synced as soon as their pods change; the default batching adds latency.
		"--concurrent-job-syncs=10",
	}
	return startProcess(bin, args, nil, logFile)
}

func startProcess(bin string, args, env []string, logFile string) (*Process, error) {
	log, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start %s: %w", filepath.Base(bin), err)
	}
	p := &Process{cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); log.Close() }()
	return p, nil
}

// Stop interrupts the process and waits (bounded) for it to end; it returns the CPU time the
// process used.
func (p *Process) Stop() time.Duration {
	_ = p.cmd.Process.Signal(os.Interrupt)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	select {
	case <-p.done:
	case <-ctx.Done():
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	if st := p.cmd.ProcessState; st != nil {
		return st.UserTime() + st.SystemTime()
	}
	return 0
}

// StartBinary runs any program next to the test API server with extra environment variables,
// logging to logFile.
func StartBinary(bin string, args, env []string, logFile string) (*Process, error) {
	return startProcess(bin, args, env, logFile)
}
