// Package kube connects the plugin to the cluster kubectl points at, and turns API errors into
// messages that say what to do next.
package kube

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	apischeme "github.com/kairos-io/kubectl-kairos/api/scheme"
)

// Clientset connects a typed clientset, for what the generic client does not do (logs, exec),
// and returns the REST config it used.
func Clientset(flags *genericclioptions.ConfigFlags) (*rest.Config, kubernetes.Interface, error) {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	return cfg, cs, err
}

// InstallHint tells how to install the operator.
const InstallHint = "install the operator with: kubectl apply -k config/default (from the kairos operator repository)"

// Scheme knows the built-in types and the Kairos APIs; built once per process.
var Scheme = apischeme.New()

// Client returns a client for the cluster and the namespace that kubectl's flags select.
func Client(flags *genericclioptions.ConfigFlags) (client.WithWatch, string, error) {
	cfg, err := flags.ToRESTConfig()
	if err != nil {
		return nil, "", fmt.Errorf("load kubeconfig: %w", err)
	}
	ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return nil, "", fmt.Errorf("find the namespace: %w", err)
	}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: Scheme})
	if err != nil {
		return nil, "", fmt.Errorf("connect to the cluster: %w", err)
	}
	return c, ns, nil
}

// Explain rewrites an API error about kind into one that says what to do next.
func Explain(err error, kind string) error {
	switch {
	case err == nil:
		return nil
	case meta.IsNoMatchError(err) || (apierrors.IsNotFound(err) && isMissingAPI(err)):
		return fmt.Errorf("the Kairos operator is not installed in this cluster (there is no %s API); %s", kind, InstallHint)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("%w; ask a cluster administrator for access to %s objects", err, kind)
	case apierrors.IsAlreadyExists(err):
		return fmt.Errorf("%w; choose another --name, or delete the old one first", err)
	}
	return err
}

func isMissingAPI(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d == nil || d.Name == ""
}
