// Package testbed starts and stops real Kubernetes clusters on one machine:
// a management cluster and member clusters, each made of etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler and a kwok
// controller, with fake nodes that kwok keeps Ready. Pods really schedule
// on those nodes, turn Running, or stay Pending when nothing fits: the
// scheduler and the controllers are Kubernetes's own, only the kubelet is
// simulated. Each member also runs metrics-server, which serves
// metrics.k8s.io from the usage kwok simulates for each pod, as its
// annotations declare (UsageCPUAnnotation, UsageMemoryAnnotation).
//
// # How a testbed starts
//
// Up reads a Profile (the member clusters, their node pools, regions and
// the latencies between them; see Profiles), allocates the ports of every
// component on 127.0.0.1, and runs kwokctl's binary runtime once per
// cluster, all clusters in parallel, with the binaries that `make k8s-bin`
// builds. It then waits for each API server to be ready, creates the
// profile's Node objects with their capacity and topology labels, installs
// Meridian's CRDs in the management cluster with server-side apply, and
// registers every member as a Cluster whose kubeconfig lives in a Secret
// in meridian-system. One kubeconfig file with a context per cluster ends
// the work.
//
// # Components that lose the race
//
// kwokctl forks a cluster's components at once and waits for none of them,
// so the API server's clients race it. On a busy machine (two cores, a
// disk busy with synced writes, six clusters starting) the API server may
// not answer for many seconds, and a client that gives up at start
// exits: metrics-server panics when it cannot read the
// extension-apiserver-authentication ConfigMap. While a cluster starts, a
// supervisor watches its processes. etcd or kube-apiserver exiting fails
// the cluster at once. kube-controller-manager, kube-scheduler,
// kwok-controller and metrics-server keep no state: one that exits is
// started again (kwokctl start cluster) once the API server is ready, with
// a backoff, up to five times within the start timeout. Each restart is a
// StepRestart in the progress, with the reason the component exited, and
// the log of the run that exited stays beside the new one
// (logs/<component>.log.<n>).
//
// # Clusters added while it runs
//
// AddCluster starts one more member on a running testbed, SetNodes gives
// a member worker nodes (<cluster>-worker-<n>) and takes them away, and
// RemoveCluster stops an added member and removes every trace of it. Each
// call takes the testbed's lock for its duration, so a long-running
// process (the testbed cloud backend, in a controller) can make them
// while commands read the testbed. Added members live in the same folder
// and state file as the profile's: Status lists them and Down stops them.
//
// # Where state lives
//
// Everything a testbed owns is under its folder (Options.Dir): kwokctl's
// work directory (KWOK_WORKDIR, so nothing goes to ~/.kwok), one folder per
// cluster with its PKI, etcd data, pid files and component logs, the
// kubeconfig, and testbed.json, which records the profile and the ports.
// A file lock on the folder keeps two commands from acting on the same
// testbed at once.
//
// # How a testbed stops
//
// kwokctl starts each component in its own session and forgets it; its
// delete command kills the pids it wrote down and does not check that they
// are gone. Down therefore does not rely on pid files alone: it scans /proc
// for every process whose executable path lies under the testbed's folder
// (kwokctl runs components through links in that folder), kills each one's
// process group, waits until none is left, and only then removes the
// folder. A failed Up does the same before it returns, so no process
// outlives an error.
package testbed
