package progress

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestTransientErrors(t *testing.T) {
	gr := schema.GroupResource{Group: "operator.kairos.io", Resource: "nodeopupgrades"}
	cases := map[string]struct {
		err  error
		want bool
	}{
		"connection refused": {&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		"wrapped refused":    {fmt.Errorf("get: %w", syscall.ECONNREFUSED), true},
		"unavailable":        {apierrors.NewServiceUnavailable("restarting"), true},
		"timeout":            {apierrors.NewTimeoutError("slow", 1), true},
		"throttled":          {apierrors.NewTooManyRequests("slow down", 1), true},
		"not found":          {apierrors.NewNotFound(gr, "x"), false},
		"forbidden":          {apierrors.NewForbidden(gr, "x", errors.New("no")), false},
		"operator missing":   {errors.New("the Kairos operator is not installed in this cluster"), false},
	}
	for name, tc := range cases {
		if got := transient(tc.err); got != tc.want {
			t.Errorf("%s: transient = %v, want %v", name, got, tc.want)
		}
	}
}
