package cli

import (
	"bytes"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/meridian-dev/meridian/internal/manifest"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// TestConvertKarmada converts Karmada policies and applies the output to a
// real API server with Meridian's CRDs: what the converter prints is
// accepted as written, and the warnings name what did not carry over.
func TestConvertKarmada(t *testing.T) {
	cmd := newConvertCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs([]string{"karmada", "-f", "../karmada/testdata/karmada.yaml"})
	if err := cmd.ExecuteContext(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "warning: PropagationPolicy shop/web: spec.failover: not carried over") {
		t.Errorf("warnings:\n%s\nwant one naming spec.failover", errOut.String())
	}
	objs, err := manifest.Read(&out)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("%d objects printed, want 2:\n%s", len(objs), out.String())
	}
	env := testenv.Start(t, testenv.Options{})
	c := env.Management.Client
	if err := c.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}}); err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if err := c.Create(t.Context(), o, client.FieldValidation("Strict")); err != nil {
			t.Errorf("%s %s refused: %v", o.GetKind(), o.GetName(), err)
		}
	}
}

func TestConvertKarmadaRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"karmada"}, "-f is required"},
		{[]string{"karmada", "-f", "nowhere.yaml"}, `invalid -f "nowhere.yaml"`},
	} {
		cmd := newConvertCommand()
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		cmd.SetArgs(tc.args)
		if err := cmd.ExecuteContext(t.Context()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want an error containing %q", tc.args, err, tc.want)
		}
	}
}
