// Package jobspec builds the Jobs and pods a NodeOp runs on a node. Everything here is pure:
// objects in, objects out; the controller decides when to create them.
package jobspec

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// Name lengths leave room for the Job controller's 6-character pod suffix and for our own
// "-preflight" suffix within the 63 characters a pod's hostname may have.
const (
	maxOpPart   = 20
	maxNodePart = 20
)

// JobName is the name of the Job of op on node. It is deterministic, so that an operator that
// restarted finds the Job it created before, and includes op's UID, so that a NodeOp re-created
// with the same name never adopts the Jobs of its predecessor.
func JobName(op *kairosv1alpha1.NodeOp, node string) string {
	return objectName(op, node, "")
}

// RebootPodName is the name of the pod that reboots node for op.
func RebootPodName(op *kairosv1alpha1.NodeOp, node string) string {
	return objectName(op, node, "reboot")
}

// PreflightPodName is the name of the pod that runs op's preflight check on node.
func PreflightPodName(op *kairosv1alpha1.NodeOp, node string) string {
	return objectName(op, node, "preflight")
}

func objectName(op *kairosv1alpha1.NodeOp, node, suffix string) string {
	sum := sha256.Sum256([]byte(string(op.UID) + "/" + node))
	parts := []string{dnsPart(op.Name, maxOpPart), dnsPart(node, maxNodePart), hex.EncodeToString(sum[:4])}
	if suffix != "" {
		parts = append(parts, suffix)
	}
	return strings.Join(parts, "-")
}

// dnsPart keeps the DNS-label-safe beginning of s, at most n characters.
func dnsPart(s string, n int) string {
	b := []byte(strings.ToLower(s))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			b[i] = '-'
		}
	}
	out := strings.Trim(string(b[:min(len(b), n)]), "-")
	if out == "" {
		return "x"
	}
	return out
}
