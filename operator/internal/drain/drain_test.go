package drain

import (
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestDescribeNamesWhatBlockedTheDrain(t *testing.T) {
	refusals := &lastLines{}
	_, _ = refusals.Write([]byte("error when evicting pods/\"web-1\" -n \"shop\" (will retry after 5s): Cannot evict pod\n"))
	_, _ = refusals.Write([]byte("error when evicting pods/\"db-0\" -n \"shop\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.\n"))
	msg := describe(errors.New(`error when evicting pods/"db-0" -n "shop": global timeout reached: 2s`), refusals.String(), 2*time.Second)
	for _, want := range []string{"still not evicted after 2s", `pods/"db-0"`, "disruption budget"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if long := describe(errors.New(strings.Repeat("x", 5000)), "", 0); len(long) > 1010 {
		t.Errorf("message not bounded: %d characters", len(long))
	}
	if plain := describe(errors.New("cannot delete Pods declare no controller (use --force to override): shop/lonely"), "", 0); !strings.Contains(plain, "shop/lonely") {
		t.Errorf("non-timeout errors must pass through: %q", plain)
	}
}

func TestRunnerForgetsAndCancels(t *testing.T) {
	r := NewRunner(Config{})
	key := Key{Owner: types.UID("op-1"), Node: "n1"}
	if st, _ := r.State(key); st != NotStarted {
		t.Fatalf("state %v before any start", st)
	}
	// Register a run without starting a goroutine: Forget and Cancel must drop it.
	r.runs[key] = &drainRun{state: Running, cancel: func() {}}
	r.runs[Key{Owner: "op-2", Node: "n1"}] = &drainRun{state: Running, cancel: func() {}}
	r.Forget("op-1")
	if st, _ := r.State(key); st != NotStarted {
		t.Errorf("forgotten drain still %v", st)
	}
	if st, _ := r.State(Key{Owner: "op-2", Node: "n1"}); st != Running {
		t.Errorf("another owner's drain was touched: %v", st)
	}
	r.Cancel(Key{Owner: "op-2", Node: "n1"})
	if len(r.runs) != 0 {
		t.Errorf("%d drains left after cancel", len(r.runs))
	}
}
