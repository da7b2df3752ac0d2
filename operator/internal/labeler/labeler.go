package labeler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/log"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	"github.com/kairos-io/kubectl-kairos/operator/internal/kairosrelease"
)

// ownedLabels are the labels the labeler sets, and so the only ones it ever removes.
var ownedLabels = func() map[string]bool {
	owned := map[string]bool{kairosv1alpha1.LabelManaged: true, kairosv1alpha1.LabelBootState: true}
	for _, l := range releaseLabels {
		owned[l] = true
	}
	return owned
}()

// Labeler keeps one node's labels in line with what its host says.
type Labeler struct {
	Client   kubernetes.Interface
	NodeName string
	// EtcDir is the host's /etc (mounted read-only in the pod).
	EtcDir string
	// CmdlinePath is the host's kernel command line.
	CmdlinePath string
	// BootIDPath holds the running kernel's boot ID (the kernel does not namespace it, so the
	// container's own /proc/sys/kernel/random/boot_id is the host's). Empty: not recorded.
	BootIDPath string
}

// Desired returns the labels the node should carry; nil for a node that does not run Kairos.
func (l *Labeler) Desired() (map[string]string, error) {
	release, err := readRelease(filepath.Join(l.EtcDir, "kairos-release"))
	if errors.Is(err, fs.ErrNotExist) {
		osRelease, osErr := readRelease(filepath.Join(l.EtcDir, "os-release"))
		if osErr != nil && !errors.Is(osErr, fs.ErrNotExist) {
			return nil, osErr
		}
		if !IsKairos(osRelease) {
			return nil, nil
		}
		release, err = osRelease, nil
	}
	if err != nil {
		return nil, err
	}
	cmdline, err := os.ReadFile(l.CmdlinePath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", l.CmdlinePath, err)
	}
	return Labels(release, string(cmdline)), nil
}

func readRelease(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return kairosrelease.Parse(f)
}

// Sync sets the labels the node should carry and removes stale ones of its own; every other
// label is left alone. It writes nothing when the node is already right.
func (l *Labeler) Sync(ctx context.Context) error {
	desired, err := l.Desired()
	if err != nil {
		return err
	}
	node, err := l.Client.CoreV1().Nodes().Get(ctx, l.NodeName, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get node %s: %w", l.NodeName, err)
	}
	change := map[string]*string{}
	for key, value := range desired {
		if node.Labels[key] != value {
			change[key] = &value
		}
	}
	for key := range node.Labels {
		if _, keep := desired[key]; !keep && ownedLabels[key] {
			change[key] = nil // removed by the merge patch
		}
	}
	annotations, err := l.bootIDChange(node.Annotations, desired != nil)
	if err != nil {
		return err
	}
	if len(change) == 0 && len(annotations) == 0 {
		return nil
	}
	meta := map[string]any{}
	if len(change) > 0 {
		meta["labels"] = change
	}
	if len(annotations) > 0 {
		meta["annotations"] = annotations
	}
	patch, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		return err
	}
	if _, err := l.Client.CoreV1().Nodes().Patch(ctx, l.NodeName, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("label node %s: %w", l.NodeName, err)
	}
	log.FromContext(ctx).Info("Labelled node", "node", l.NodeName, "changes", len(change), "kairos", desired != nil)
	return nil
}

// bootIDChange stamps a Kairos node's labels with the boot they were read in, so that readers
// can tell labels of the running system from leftovers of the previous boot; a node that is
// not Kairos loses the stamp.
func (l *Labeler) bootIDChange(current map[string]string, kairos bool) (map[string]*string, error) {
	key := kairosv1alpha1.AnnotationLabelledBootID
	_, stamped := current[key]
	if !kairos || l.BootIDPath == "" {
		if stamped {
			return map[string]*string{key: nil}, nil
		}
		return nil, nil
	}
	raw, err := os.ReadFile(l.BootIDPath)
	if err != nil {
		return nil, fmt.Errorf("read boot ID: %w", err)
	}
	bootID := strings.TrimSpace(string(raw))
	if current[key] == bootID {
		return nil, nil
	}
	return map[string]*string{key: &bootID}, nil
}

// Run syncs now and then every interval until ctx ends; failures are logged and retried on the
// next tick, so a passing API outage does not stop the labeler.
func (l *Labeler) Run(ctx context.Context, interval time.Duration) error {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		if err := l.Sync(ctx); err != nil {
			log.FromContext(ctx).Error(err, "Labelling node failed", "node", l.NodeName)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}
