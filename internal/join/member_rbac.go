package join

// The member ClusterRole: what the controller does in every member it
// reaches with the credentials Join made. `make manifests` generates
// config/rbac/member/role.yaml from these markers, Join grants it, and
// TestMemberRoleIsWhatTheControllerDoes (audit_test.go) runs every
// controller against a member that records its API server's audit log,
// and fails when the controller is refused a request or when a rule below
// is never used. Kinds a policy may place beyond these are granted with
// `meridian join --resource`.

// The inventory watches every node and pod (capacity, as kube-scheduler
// counts it).
// +kubebuilder:rbac:groups="",resources=nodes;pods,verbs=list;watch

// Member workloads of MultiClusterDeployments, MultiClusterJobs and plain
// workloads a policy divides; DaemonSets and CronJobs a policy copies:
// watched for their status, read before a write (a member's own object of
// the name is never overwritten), server-side applied, deleted when they
// move or their owner goes, and swept when orphaned. A server-side apply
// that creates an object needs create beside patch.
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets;replicasets;daemonsets,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=batch,resources=jobs;cronjobs,verbs=get;list;watch;create;patch;delete

// Services of MultiClusterServices and of policies; the dependencies a
// workload's pods name (ConfigMaps, Secrets, ServiceAccounts, claims); the
// orphan sweeper lists them all by their metadata.
// +kubebuilder:rbac:groups="",resources=services;configmaps;secrets;serviceaccounts;persistentvolumeclaims,verbs=get;list;watch;create;patch;delete

// A namespaced write creates its namespace when the member lacks it; a
// policy that places a Namespace reads, applies and, when it leaves the
// member, disowns it (never deletes it).
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=create;get;list;watch;patch

// ServiceExports of the Multi-Cluster Services API, where the member
// serves it.
// +kubebuilder:rbac:groups=multicluster.x-k8s.io,resources=serviceexports,verbs=list;watch;create;patch;delete

// The multi-cluster HPA reads the CPU usage of its target's pods.
// +kubebuilder:rbac:groups=metrics.k8s.io,resources=pods,verbs=list
