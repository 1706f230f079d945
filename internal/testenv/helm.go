package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// Helm returns the helm binary the chart tests run: the one MERIDIAN_HELM
// names, else helm on PATH. `make helm-bin` builds it (hack/helm-bin.sh),
// and t fails without one.
func Helm(t testing.TB) string {
	t.Helper()
	bin, err := helmBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func helmBinary() (string, error) {
	if bin := os.Getenv("MERIDIAN_HELM"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("MERIDIAN_HELM names no helm binary: run 'make helm-bin': %w", err)
		}
		return bin, nil
	}
	bin, err := exec.LookPath("helm")
	if err != nil {
		return "", fmt.Errorf("no helm binary in MERIDIAN_HELM or on PATH: run 'make helm-bin': %w", err)
	}
	return bin, nil
}
