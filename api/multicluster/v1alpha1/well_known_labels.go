package v1alpha1

// Labels Meridian puts on the objects it creates in member clusters, so that
// they can be traced back to their owner in the management cluster and found
// again after a restart.
const (
	// LabelManagedBy is set to ManagedByMeridian on every object Meridian
	// creates in a member.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// ManagedByMeridian is the value of LabelManagedBy.
	ManagedByMeridian = "meridian"
	// LabelOwnerKind is the kind of the owner (MultiClusterDeployment, ...).
	LabelOwnerKind = "multicluster.meridian.dev/owner-kind"
	// LabelOwnerNamespace is the namespace of the owner.
	LabelOwnerNamespace = "multicluster.meridian.dev/owner-namespace"
	// LabelOwnerName is the name of the owner.
	LabelOwnerName = "multicluster.meridian.dev/owner-name"
	// AnnotationOwnerUID holds the UID of the owner, to tell a re-created
	// owner of the same name from the one an object was made for.
	AnnotationOwnerUID = "multicluster.meridian.dev/owner-uid"
	// AnnotationOwnerGeneration holds the owner's metadata.generation the
	// object was made from, to tell when it must be written again.
	AnnotationOwnerGeneration = "multicluster.meridian.dev/owner-generation"
)

// AnnotationDrainStarted is set, on a cloud node a CloudProvisioner cordoned
// to drain it, to when the drain started (RFC 3339), so that a restarted
// controller resumes the drain where it was rather than leaving the node
// cordoned.
const AnnotationDrainStarted = "multicluster.meridian.dev/drain-started"

// LabelCloudProvisioner is set, on the Cluster and Secret a CloudProvisioner
// makes when its cloud cluster joins, to the CloudProvisioner's name.
const LabelCloudProvisioner = "multicluster.meridian.dev/cloud-provisioner"

// Labels and annotations on the ConfigMaps, Secrets, ServiceAccounts and
// PersistentVolumeClaims Meridian copies into a member because the pods of
// the workloads it runs there need them.
const (
	// LabelDependency is set to "true" on every such copy, so that the
	// copies are found again after a restart and no other object of a
	// member is ever taken for one.
	LabelDependency = "multicluster.meridian.dev/dependency"
	// AnnotationUsedBy lists the workloads in the member that need the
	// copy, as kind/name, comma-separated.
	AnnotationUsedBy = "multicluster.meridian.dev/used-by"
	// AnnotationSourceVersion is the resourceVersion of the management
	// cluster's object the copy was made from, to tell when it must be
	// written again.
	AnnotationSourceVersion = "multicluster.meridian.dev/source-resource-version"
)

// Labels and annotations of what `meridian join` makes, in the member (its
// ServiceAccount, roles and bindings) and in the management cluster (the
// Cluster and its kubeconfig Secret), so that `meridian unjoin` finds all of
// it and the controller renews the token it issued.
const (
	// LabelJoinedCluster is set to the Cluster's name on every object
	// `meridian join` made for it.
	LabelJoinedCluster = "multicluster.meridian.dev/joined-cluster"
	// ManagedByJoin is the value of LabelManagedBy on those objects (not
	// ManagedByMeridian: they are not workloads the controller removes from
	// a member it leaves).
	ManagedByJoin = "meridian-join"
	// AnnotationClusterID is the member's identity, the UID of its
	// kube-system namespace (as SIG Multicluster's ClusterProperty
	// cluster.clusterset.k8s.io names a cluster), so that one member is not
	// joined twice under two names.
	AnnotationClusterID = "multicluster.meridian.dev/cluster-id"
	// AnnotationManagementID is, on the member's ServiceAccount, the
	// identity of the management cluster that joined it.
	AnnotationManagementID = "multicluster.meridian.dev/management-id"
	// AnnotationCreatedByJoin marks a member namespace `meridian join`
	// created (not one that was there before), which `meridian unjoin`
	// deletes.
	AnnotationCreatedByJoin = "multicluster.meridian.dev/created-by-join"
	// AnnotationTokenServiceAccount is, on a kubeconfig Secret, the
	// member's ServiceAccount (namespace/name) whose token it holds; the
	// controller renews that token through the TokenRequest API.
	AnnotationTokenServiceAccount = "multicluster.meridian.dev/token-service-account"
	// AnnotationTokenIssued and AnnotationTokenExpires are when the
	// token was issued and when it expires (RFC 3339).
	AnnotationTokenIssued  = "multicluster.meridian.dev/token-issued"
	AnnotationTokenExpires = "multicluster.meridian.dev/token-expires"
)
