package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAdvisorServeFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{name: "missing data dir", args: []string{"advisor", "serve", "--data-dir", t.TempDir() + "/absent"}, want: "invalid --data-dir"},
		{name: "bad address", args: []string{"advisor", "serve", "--data-dir", t.TempDir(), "--addr", "127.0.0.1:http-alt-x"}, want: "invalid --addr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := execute(t, tc.args...)
			got := ""
			if err != nil {
				got, _, _ = strings.Cut(err.Error(), " \"")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("error prefix (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}
