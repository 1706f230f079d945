// Package testenv starts real Kubernetes API servers for tests: one
// management cluster with Meridian's CRDs installed and any number of member
// clusters, each its own etcd and kube-apiserver (controller-runtime
// envtest), all in the test's process.
//
// The binaries come from KUBEBUILDER_ASSETS or, when that is unset, from the
// folder `make k8s-bin` fills (bin/k8s/<version> in the repository). Every
// server is stopped when the test ends, also when it fails; Start skips the
// test under `go test -short`, so `make test-unit` needs no binaries.
//
//	env := testenv.Start(t, testenv.Options{Members: 3})
//	env.Management.Client.Create(ctx, obj)
//	kubeconfig := env.Members[0].Kubeconfig
//
// A package whose TestMain calls Main shares its servers between its tests:
// a test's servers go back to a pool when it ends, with every object the
// test made deleted (finalizers removed, namespaces finalized), and the
// next test gets them instead of fresh ones; a server a test stopped, or one
// that cannot be brought back to what it held at start, is replaced. Main
// stops them all when the tests end. MERIDIAN_TESTENV_FRESH=1 turns the
// pool off, for a test suspected of depending on another's leftovers.
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
//
// StartCluster starts one more API server while a test runs, for code that
// creates clusters (a cloud backend), and StartPrometheus a real Prometheus
// server (Debian's package, `make prometheus`) scraping the test's own
// exposition endpoints, for code that queries one.
package testenv
