// Package scheme builds the one runtime.Scheme both programs (and the tests) use: Kubernetes'
// built-in types and the Kairos APIs.
package scheme

import (
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
)

// New returns a scheme with the built-in types and NodeOp, NodeOpUpgrade and OSArtifact.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, kairosv1alpha1.AddToScheme, kairosv1alpha2.AddToScheme,
	} {
		// Registering compiled-in types only fails on a programming error (a duplicate kind).
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}
