package testbed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Binaries are the programs a testbed runs, all expected in one folder:
// the components, and kwokctl, which starts them.
var Binaries = []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok", "kwokctl", MetricsServer}

// FindBinDir returns the folder holding Binaries: KUBEBUILDER_ASSETS when
// it holds them all, else the newest bin/k8s/<version> folder of the
// repository around the working directory or around the running
// executable (where `make k8s-bin` builds them).
func FindBinDir() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" && CheckBinDir(dir) == nil {
		return filepath.Abs(dir)
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	var tried []string
	for _, start := range starts {
		for dir := start; ; dir = filepath.Dir(dir) {
			k8s := filepath.Join(dir, "bin", "k8s")
			if dirs := binDirsUnder(k8s); len(dirs) > 0 {
				return dirs[len(dirs)-1], nil
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				tried = append(tried, k8s)
				break
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	where := "the repository's bin/k8s"
	if len(tried) > 0 {
		where = strings.Join(tried, " or ")
	}
	return "", fmt.Errorf("no folder with %s found in KUBEBUILDER_ASSETS or %s: run 'make k8s-bin' in the repository, or pass --bin-dir",
		strings.Join(Binaries, ", "), where)
}

// binDirsUnder returns the folders under dir that hold every binary,
// sorted by name (which starts with the Kubernetes version).
func binDirsUnder(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		d := filepath.Join(dir, e.Name())
		if e.IsDir() && CheckBinDir(d) == nil {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// CheckBinDir reports which of Binaries dir lacks or cannot execute.
func CheckBinDir(dir string) error {
	var missing []string
	for _, name := range Binaries {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("folder %s lacks executable %s: run 'make k8s-bin' or pass another --bin-dir",
			dir, strings.Join(missing, ", "))
	}
	return nil
}

// kubectlPath returns the kubectl kwokctl will use to check that an API
// server serves: the bin folder's, or the first on PATH. Without one,
// kwokctl would try to download kubectl and wait two minutes per cluster.
func kubectlPath(binDir string) (string, error) {
	if p := filepath.Join(binDir, "kubectl"); isExecutable(p) {
		return p, nil
	}
	p, err := exec.LookPath("kubectl")
	if err != nil {
		return "", errors.New("kwokctl needs kubectl to check that an API server serves, and none is on PATH or in the bin folder: install kubectl (any recent version)")
	}
	return filepath.Abs(p)
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

var kubeVersionPattern = regexp.MustCompile(`Kubernetes (v\d+\.\d+\.\d+\S*)`)

// kubernetesVersion runs kube-apiserver --version and returns the version
// it reports, which kwokctl is told so it does not assume its own default.
func kubernetesVersion(ctx context.Context, binDir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	bin := filepath.Join(binDir, "kube-apiserver")
	out, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("failed to run %s --version: %w: %s", bin, err, bytes.TrimSpace(out))
	}
	m := kubeVersionPattern.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("%s --version printed %q, not \"Kubernetes vX.Y.Z\": rebuild it with 'make k8s-bin'", bin, bytes.TrimSpace(out))
	}
	return string(m[1]), nil
}
