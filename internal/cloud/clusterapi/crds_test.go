package clusterapi_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// capiAPIModule is the module of the Cluster API Go types the backend
// writes; capiModule is the module of the same release that holds the CRDs.
const (
	capiAPIModule = "sigs.k8s.io/cluster-api/api"
	capiModule    = "sigs.k8s.io/cluster-api"
)

// capiCRDs returns the CRD files of the kinds the backend writes or reads,
// from the Cluster API release whose API module this test is built with, so
// that the schemas and CEL rules are those of the types in go.mod.
func capiCRDs(t *testing.T) []string {
	t.Helper()
	dir := moduleDir(t, capiModule, moduleVersion(t, capiAPIModule))
	files := []string{
		"core/config/crd/bases/cluster.x-k8s.io_clusters.yaml",
		"core/config/crd/bases/cluster.x-k8s.io_machinedeployments.yaml",
		"core/config/crd/bases/cluster.x-k8s.io_machines.yaml",
		"controlplane/kubeadm/config/crd/bases/controlplane.cluster.x-k8s.io_kubeadmcontrolplanes.yaml",
		"bootstrap/kubeadm/config/crd/bases/bootstrap.cluster.x-k8s.io_kubeadmconfigtemplates.yaml",
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(dir, filepath.FromSlash(f))
		if _, err := os.Stat(paths[i]); err != nil {
			t.Fatalf("Cluster API CRD missing from the module: %v", err)
		}
	}
	return paths
}

// moduleVersion is the version of path in go.mod. (A test binary carries
// no module versions in its build information.)
func moduleVersion(t *testing.T, path string) string {
	t.Helper()
	out, err := goCommand(t, ".", "list", "-m", "-f", "{{.Version}}", path)
	version := strings.TrimSpace(string(out))
	if err != nil || version == "" {
		t.Fatalf("failed to find the version of %s in go.mod: %v (output: %s)", path, err, out)
	}
	return version
}

// moduleDir returns the module cache folder of path at version, downloading
// the module through the Go module proxy when it is not cached. It runs
// outside the repository, so that go.mod and go.sum are left as they are.
func moduleDir(t *testing.T, path, version string) string {
	t.Helper()
	out, err := goCommand(t, t.TempDir(), "mod", "download", "-json", path+"@"+version)
	var mod struct {
		Dir   string
		Error string
	}
	if jsonErr := json.Unmarshal(out, &mod); jsonErr != nil || err != nil || mod.Error != "" {
		t.Fatalf("failed to find module %s@%s in the module cache: %v %s (output: %s)", path, version, err, mod.Error, out)
	}
	return mod.Dir
}

// goCommand runs the go command in dir, without the flags of the
// environment that would change which modules it sees.
func goCommand(t *testing.T, dir string, args ...string) ([]byte, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	return cmd.Output()
}
