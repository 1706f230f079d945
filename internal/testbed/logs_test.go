package testbed

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestComponentErrorMessage checks the first line of a ComponentError,
// which says why the component exited even when its log ends with a stack
// or its usage.
func TestComponentErrorMessage(t *testing.T) {
	log := filepath.Join(t.TempDir(), "metrics-server.log")
	text := "Error: unable to load configmap based request-header-client-ca-file: connection refused\n" +
		"Usage:\n   [flags]\n      --v Level   number for the log level verbosity\n" +
		"panic: unable to load configmap based request-header-client-ca-file: connection refused\n\n" +
		"goroutine 1 [running]:\nmain.main()\n"
	if err := os.WriteFile(log, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		err  *ComponentError
		want string
	}{
		{
			name: "exited",
			err:  &ComponentError{Cluster: "member-1", Component: MetricsServer, Log: log},
			want: `cluster "member-1": metrics-server exited (panic: unable to load configmap based request-header-client-ca-file: connection refused); last lines of LOG:`,
		},
		{
			name: "exited after its restarts",
			err:  &ComponentError{Cluster: "member-1", Component: MetricsServer, Log: log, Restarts: 5},
			want: `cluster "member-1": metrics-server exited, and again after each of its 5 restarts (panic: unable to load configmap based request-header-client-ca-file: connection refused); last lines of LOG:`,
		},
		{
			name: "failed",
			err:  &ComponentError{Cluster: "member-1", Component: "kwokctl", Log: log, Err: errors.New("exit status 1")},
			want: `cluster "member-1": kwokctl: exit status 1; last lines of LOG:`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first, _, _ := strings.Cut(tc.err.Error(), "\n")
			if diff := cmp.Diff(tc.want, strings.ReplaceAll(first, log, "LOG")); diff != "" {
				t.Errorf("first line (-want +got):\n%s", diff)
			}
		})
	}
}
