// Package controller is the home of Meridian's management-plane
// reconcilers, one per subpackage (internal/controller/<kind>), and of the
// permissions they need in the management cluster. The markers below are
// the source of config/rbac/controller/role.yaml (`make manifests`; the Helm
// chart's controller ClusterRole is a copy); member clusters
// are reached with the credentials of each Cluster's kubeconfig Secret, not
// with this role.
//
// +kubebuilder:rbac:groups=multicluster.meridian.dev,resources=clusters;multiclusterdeployments;multiclusterjobs;multiclusterservices;multiclusterhorizontalpodautoscalers;cloudprovisioners;multiclusterreschedulers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=multicluster.meridian.dev,resources=clusters/status;multiclusterdeployments/status;multiclusterjobs/status;multiclusterservices/status;multiclusterhorizontalpodautoscalers/status;cloudprovisioners/status;multiclusterreschedulers/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=multicluster.meridian.dev,resources=clusters/finalizers;multiclusterdeployments/finalizers;multiclusterjobs/finalizers;multiclusterservices/finalizers;cloudprovisioners/finalizers,verbs=update
// +kubebuilder:rbac:groups=multicluster.meridian.dev,resources=multiclusterdeployments/scale,verbs=get;update;patch
// +kubebuilder:rbac:groups=multicluster.meridian.dev,resources=clusters,verbs=create;delete
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=clusters;machinedeployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=cluster.x-k8s.io,resources=machines,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=controlplane.cluster.x-k8s.io,resources=kubeadmcontrolplanes,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=bootstrap.cluster.x-k8s.io,resources=kubeadmconfigtemplates,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=infrastructure.cluster.x-k8s.io,resources=openstackclusters;openstackmachinetemplates,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch
package controller
