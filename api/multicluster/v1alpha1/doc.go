// Package v1alpha1 holds the API of Meridian's multi-cluster placement
// capability (seed 001, mck8s) in the multicluster.meridian.dev group:
// member Clusters, the workloads placed across them (MultiClusterDeployment,
// MultiClusterJob), the Services that follow them (MultiClusterService), and
// the loops that scale them (MultiClusterHorizontalPodAutoscaler,
// CloudProvisioner, MultiClusterRescheduler).
//
// The manifests stay close to their single-cluster counterparts: a
// MultiClusterDeployment is a Deployment plus a placement block, and a
// MultiClusterHorizontalPodAutoscaler is a HorizontalPodAutoscaler whose
// target is a MultiClusterDeployment.
//
// +kubebuilder:object:generate=true
// +groupName=multicluster.meridian.dev
package v1alpha1
