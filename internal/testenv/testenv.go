package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/meridian-dev/meridian/internal/scheme"
)

// Options say what to start.
type Options struct {
	// Members is the number of member clusters, named member-1, member-2, ...
	Members int
	// ExtraCRDPaths are more CRD files or folders to install in the
	// management cluster, beside Meridian's.
	ExtraCRDPaths []string
}

// Cluster is one running API server and the ways to reach it.
type Cluster struct {
	Name string
	// Config reaches the API server as a cluster administrator.
	Config *rest.Config
	// Client is a controller-runtime client with Meridian's and the core
	// Kubernetes types registered.
	Client client.Client
	// Kubeconfig is a kubeconfig file's contents for the same user, as a
	// Cluster's kubeconfig Secret would hold it.
	Kubeconfig []byte

	env      *envtest.Environment
	stopOnce sync.Once
	stopErr  error
	stopped  bool
	// baseline is what a pooled server held when it started (pool.go).
	baseline map[types.UID]object
}

// Stop stops the cluster's API server and etcd, for tests of a member that
// goes away. It is safe to call more than once; Start's cleanup calls it too.
func (c *Cluster) Stop() error {
	c.stopOnce.Do(func() {
		servers.mu.Lock()
		c.stopped = true
		servers.mu.Unlock()
		c.stopErr = c.env.Stop()
	})
	return c.stopErr
}

func (c *Cluster) isStopped() bool {
	servers.mu.Lock()
	defer servers.mu.Unlock()
	return c.stopped
}

// Env is a management cluster and its members.
type Env struct {
	Management *Cluster
	Members    []*Cluster
}

// Scheme returns the scheme of the harness's clients (see package scheme).
func Scheme() *runtime.Scheme { return scheme.New() }

var setLoggerOnce sync.Once

// setLogger sends controller-runtime's logs to stderr when MERIDIAN_TEST_LOGS
// is set, and drops them otherwise.
func setLogger() {
	setLoggerOnce.Do(func() {
		if os.Getenv("MERIDIAN_TEST_LOGS") != "" {
			ctrllog.SetLogger(zap.New(zap.UseDevMode(true), zap.WriteTo(os.Stderr)))
			return
		}
		ctrllog.SetLogger(logr.Discard())
	})
}

// Start starts the management cluster and opts.Members members in
// parallel, and stops them all when t ends. It skips t under -short and
// fails t when a server does not start.
func Start(t testing.TB, opts Options) *Env {
	t.Helper()
	assets := prologue(t)
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}

	crds := append([]string{filepath.Join(root, "config", "crd", "bases")}, opts.ExtraCRDPaths...)
	envs := make([]*envtest.Environment, 1+opts.Members)
	envs[0] = &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     crds,
		ErrorIfCRDPathMissing: true,
		Scheme:                Scheme(),
	}
	for i := 1; i < len(envs); i++ {
		envs[i] = &envtest.Environment{BinaryAssetsDirectory: assets}
	}

	names := make([]string, len(envs))
	names[0] = "management"
	for i := 1; i < len(envs); i++ {
		names[i] = fmt.Sprintf("member-%d", i)
	}

	keys := make([]string, len(envs))
	keys[0] = "crds:" + strings.Join(crds, ",")
	clusters := make([]*Cluster, len(envs))
	pooled := make([]bool, len(envs))
	errs := make([]error, len(envs))
	var wg sync.WaitGroup
	for i := range envs {
		if clusters[i] = servers.take(keys[i], names[i]); clusters[i] != nil {
			pooled[i] = true
			continue
		}
		wg.Go(func() {
			if clusters[i], errs[i] = startOne(names[i], envs[i]); errs[i] == nil {
				pooled[i], errs[i] = servers.started(clusters[i])
			}
		})
	}
	wg.Wait()

	// Register the stops (or the returns to the pool) before failing, so
	// that the servers that did start are stopped too.
	for i, c := range clusters {
		if c == nil {
			continue
		}
		t.Cleanup(func() {
			if pooled[i] {
				if err := servers.giveBack(keys[i], c); err != nil {
					t.Errorf("failed to stop API server of %s: %v", c.Name, err)
				}
				return
			}
			if err := c.Stop(); err != nil {
				t.Errorf("failed to stop API server of %s: %v", c.Name, err)
			}
		})
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("failed to start API server of %s: %v", names[i], err)
		}
	}
	return &Env{Management: clusters[0], Members: clusters[1:]}
}

// prologue skips t under -short, sets the logger and returns the folder of
// the binaries, failing t when there is none.
func prologue(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping test that starts real API servers in -short mode")
	}
	setLogger()
	assets, err := AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	return assets
}

// StartCluster starts one more API server with no CRDs, named name, and
// stops it when t ends. It returns an error rather than failing t, so that
// code running outside the test's goroutine (a cloud backend creating a
// cluster) may call it.
func StartCluster(t testing.TB, name string) (*Cluster, error) {
	assets, err := AssetsDir()
	if err != nil {
		return nil, err
	}
	c, err := startOne(name, &envtest.Environment{BinaryAssetsDirectory: assets})
	if err != nil {
		return nil, fmt.Errorf("failed to start API server of %s: %w", name, err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("failed to stop API server of %s: %v", c.Name, err)
		}
	})
	return c, nil
}

// stopTimeout is how long a server has to stop before it is killed and its
// test fails, unless KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT says otherwise:
// envtest's 20 s default was once too short for a cloud cluster's API
// server on a loaded 2-core machine during make test.
const stopTimeout = time.Minute

func startOne(name string, env *envtest.Environment) (*Cluster, error) {
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT") == "" {
		env.ControlPlaneStopTimeout = stopTimeout
	}
	cfg, err := env.Start()
	if err != nil {
		// Start may have started etcd before the API server failed.
		_ = env.Stop()
		return nil, err
	}
	c := &Cluster{Name: name, Config: cfg, Kubeconfig: env.KubeConfig, env: env}
	c.Client, err = client.New(cfg, client.Options{Scheme: Scheme()})
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("failed to create client: %w", err)
	}
	return c, nil
}

// KubeconfigSecret returns a Secret holding c's kubeconfig under the key
// "kubeconfig", as a Cluster's kubeconfigSecretRef expects.
func (c *Cluster) KubeconfigSecret(namespace, name string) *corev1.Secret {
	s := &corev1.Secret{Data: map[string][]byte{"kubeconfig": c.Kubeconfig}}
	s.Name, s.Namespace = name, namespace
	return s
}

// AssetsDir returns the folder holding kube-apiserver and etcd: the
// KUBEBUILDER_ASSETS variable when set, or the newest folder under
// bin/k8s in the repository.
func AssetsDir() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, checkAssets(dir)
	}
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	matches, _ := filepath.Glob(filepath.Join(root, "bin", "k8s", "*", "kube-apiserver"))
	if len(matches) == 0 {
		return "", fmt.Errorf("no Kubernetes binaries under %s: run 'make k8s-bin' or set KUBEBUILDER_ASSETS", filepath.Join(root, "bin", "k8s"))
	}
	dir := filepath.Dir(matches[len(matches)-1])
	return dir, checkAssets(dir)
}

func checkAssets(dir string) error {
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("KUBEBUILDER_ASSETS folder %s has no %s: run 'make k8s-bin': %w", dir, name, err)
		}
	}
	return nil
}

// repoRoot walks up from the working directory to the folder of go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("failed to find the working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}
