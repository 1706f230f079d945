package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// MeridianBinary returns $MERIDIAN_BINARY, or builds cmd/meridian into t's
// temporary folder, for tests that run Meridian's components as their own
// processes (a controller killed with SIGKILL, agents on a testbed).
func MeridianBinary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("MERIDIAN_BINARY"); bin != "" {
		return bin
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "meridian")
	begin := time.Now()
	cmd := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "./cmd/meridian")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("failed to build meridian: %v\n%s", err, out)
	}
	t.Logf("built meridian in %s", time.Since(begin).Round(100*time.Millisecond))
	return bin
}
