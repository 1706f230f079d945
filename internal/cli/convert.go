package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/meridian-dev/meridian/internal/karmada"
	"github.com/meridian-dev/meridian/internal/manifest"
)

func newConvertCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "convert",
		Short: "Convert another system's placement policies into Meridian's",
	}
	cmd.AddCommand(newConvertKarmadaCommand())
	return cmd
}

func newConvertKarmadaCommand() *cobra.Command {
	var files []string
	cmd := &cobra.Command{
		Use:   "karmada -f FILE [-f FILE...]",
		Short: "Convert Karmada's PropagationPolicies and OverridePolicies into Meridian's PropagationPolicies",
		Long: `Reads Karmada's PropagationPolicy, ClusterPropagationPolicy, OverridePolicy and
ClusterOverridePolicy objects (policy.karmada.io/v1alpha1; "-" reads standard
input) and prints Meridian's PropagationPolicies and ClusterPropagationPolicies
as YAML, an override policy's rules merged into the policy that selects the
same resources. Every field that has no equivalent, or a different meaning,
is printed on standard error, naming it; nothing is dropped silently.
The mapping is in docs/karmada.md.

  meridian convert karmada -f karmada-policies.yaml > policies.yaml
  kubectl apply -f policies.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(files) == 0 {
				return fmt.Errorf("-f is required: give the file(s) with Karmada's policies, or - for standard input")
			}
			var objs []*unstructured.Unstructured
			for _, f := range files {
				in := cmd.InOrStdin()
				if f != "-" {
					file, err := os.Open(f)
					if err != nil {
						return fmt.Errorf("invalid -f %q: %w", f, err)
					}
					defer file.Close()
					in = file
				}
				got, err := manifest.Read(in)
				if err != nil {
					return fmt.Errorf("invalid -f %q: %w", f, err)
				}
				objs = append(objs, got...)
			}
			r, err := karmada.Convert(objs)
			if err != nil {
				return err
			}
			for _, w := range r.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
			}
			for i, p := range r.Policies {
				m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
				if err != nil {
					return err
				}
				// What the server writes is not part of a manifest.
				delete(m, "status")
				unstructured.RemoveNestedField(m, "metadata", "creationTimestamp")
				data, err := yaml.Marshal(m)
				if err != nil {
					return err
				}
				if i > 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "---")
				}
				if _, err := cmd.OutOrStdout().Write(data); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, `a file of Karmada policies ("-" for standard input); repeatable`)
	return cmd
}
