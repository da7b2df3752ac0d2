package nodeop

import (
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
)

// lastWrites remembers the NodeOp as this operator last wrote it, until the cache has caught
// up. Events about a node (its pod succeeded) often arrive before the cache holds our own
// previous status write; starting from the stale copy would only earn a conflict and a
// retry, which is most of a node's hand-over time.
type lastWrites struct {
	mu     sync.Mutex
	byName map[types.NamespacedName]*kairosv1alpha1.NodeOp
}

// freshest returns the newer of the cached NodeOp and the one last written.
func (l *lastWrites) freshest(cached *kairosv1alpha1.NodeOp) *kairosv1alpha1.NodeOp {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := types.NamespacedName{Namespace: cached.Namespace, Name: cached.Name}
	mine, ok := l.byName[key]
	if !ok {
		return cached
	}
	if mine.UID != cached.UID || !newerVersion(mine.ResourceVersion, cached.ResourceVersion) {
		delete(l.byName, key) // the cache caught up, someone else wrote since, or a new NodeOp
		return cached
	}
	return mine.DeepCopy()
}

func (l *lastWrites) remember(op *kairosv1alpha1.NodeOp) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byName == nil {
		l.byName = map[types.NamespacedName]*kairosv1alpha1.NodeOp{}
	}
	l.byName[types.NamespacedName{Namespace: op.Namespace, Name: op.Name}] = op.DeepCopy()
}

func (l *lastWrites) forget(key types.NamespacedName) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byName, key)
}

// newerVersion compares resource versions as the numbers the API server makes them; when
// either is not a number, it reports false and the cache is trusted.
func newerVersion(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA == nil && errB == nil && x > y
}
