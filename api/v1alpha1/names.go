package v1alpha1

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// NodeLabelValue turns a node name into a valid label value for LabelNode. Names that already
// are valid label values (63 characters or fewer) are kept; longer ones, such as FQDNs, are cut
// and given a hash of the full name, so that two long names never share a value.
func NodeLabelValue(node string) string {
	if len(validation.IsValidLabelValue(node)) == 0 {
		return node
	}
	sum := shortHash(node)
	keep := strings.TrimRight(node[:min(len(node), validation.LabelValueMaxLength-len(sum)-1)], "-_.")
	return keep + "-" + sum
}

// CordonOwner is the value of AnnotationCordonedBy for nodes this NodeOp cordons.
func (n *NodeOp) CordonOwner() string {
	return fmt.Sprintf("%s/%s@%s", n.Namespace, n.Name, n.UID)
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:4])
}
