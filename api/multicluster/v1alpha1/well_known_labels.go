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
