package kube

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kairosv1alpha1 "github.com/kairos-io/kubectl-kairos/api/v1alpha1"
	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
)

// CompleteOperations offers TYPE/NAME of the operations in the namespace kubectl's flags select,
// for shell completion; errors just mean no suggestions.
func CompleteOperations(flags *genericclioptions.ConfigFlags) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, ns, err := Client(flags)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		var names []string
		var ops kairosv1alpha1.NodeOpList
		if c.List(ctx, &ops, client.InNamespace(ns)) == nil {
			for _, o := range ops.Items {
				names = append(names, "nodeop/"+o.Name)
			}
		}
		var ups kairosv1alpha1.NodeOpUpgradeList
		if c.List(ctx, &ups, client.InNamespace(ns)) == nil {
			for _, u := range ups.Items {
				names = append(names, "nodeopupgrade/"+u.Name)
			}
		}
		var arts kairosv1alpha2.OSArtifactList
		if c.List(ctx, &arts, client.InNamespace(ns)) == nil {
			for _, a := range arts.Items {
				names = append(names, "osartifact/"+a.Name)
			}
		}
		var matching []string
		for _, n := range names {
			if strings.HasPrefix(n, toComplete) {
				matching = append(matching, n)
			}
		}
		return matching, cobra.ShellCompDirectiveNoFileComp
	}
}

// CompleteSecrets offers the names of the Secrets in the namespace, for flags that name one.
func CompleteSecrets(flags *genericclioptions.ConfigFlags) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		c, ns, err := Client(flags)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var secrets corev1.SecretList
		if err := c.List(context.Background(), &secrets, client.InNamespace(ns)); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for _, s := range secrets.Items {
			if strings.HasPrefix(s.Name, toComplete) {
				names = append(names, s.Name)
			}
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}
