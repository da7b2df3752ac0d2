// Command node-labeler runs on every node (a DaemonSet) and labels the node it runs on when it
// runs Kairos: kairos.io/managed=true, release facts and the boot state.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/kairos-io/kubectl-kairos/operator/internal/labeler"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "node-labeler:", err)
		os.Exit(1)
	}
}

func run() error {
	l := &labeler.Labeler{}
	var interval time.Duration
	fs := flag.NewFlagSet("node-labeler", flag.ContinueOnError)
	fs.StringVar(&l.NodeName, "node-name", os.Getenv("NODE_NAME"), "Node to label (default: $NODE_NAME).")
	fs.StringVar(&l.EtcDir, "etc-dir", "/host/etc", "The host's /etc, mounted read-only.")
	fs.StringVar(&l.CmdlinePath, "cmdline", "/host/proc/cmdline", "The host's kernel command line.")
	fs.StringVar(&l.BootIDPath, "boot-id-file", "/proc/sys/kernel/random/boot_id", "The running kernel's boot ID, recorded with the labels so readers can tell them current.")
	fs.DurationVar(&interval, "interval", 5*time.Minute, "How often to refresh the labels.")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(fs)
	if err := fs.Parse(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if l.NodeName == "" {
		return errors.New("no node name: set --node-name or NODE_NAME (the DaemonSet passes spec.nodeName)")
	}
	if interval < time.Second {
		return fmt.Errorf("--interval %s is too short", interval)
	}
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("load kubeconfig: %w", err)
	}
	if l.Client, err = kubernetes.NewForConfig(cfg); err != nil {
		return err
	}
	ctx := ctrl.SetupSignalHandler()
	return l.Run(ctrl.LoggerInto(ctx, ctrl.Log.WithName("node-labeler")), interval)
}
