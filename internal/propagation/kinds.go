package propagation

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// memberKinds are the kinds of the objects Meridian makes in members that
// are found again by their labels alone: the member workloads and Services
// of its own kinds, the dependencies it copies, and the kinds policies most
// often place whole. The orphan sweeper checks them for owners that are
// gone (deleted while a member was unreachable), and a member leaving
// Meridian is emptied of them; a copy of another kind stays in such a
// member until removed by hand.
var memberKinds = []schema.GroupVersionKind{
	{Group: "apps", Version: "v1", Kind: "DeploymentList"}, {Group: "apps", Version: "v1", Kind: "StatefulSetList"},
	{Group: "apps", Version: "v1", Kind: "DaemonSetList"}, {Group: "apps", Version: "v1", Kind: "ReplicaSetList"}, {Group: "batch", Version: "v1", Kind: "JobList"},
	{Group: "batch", Version: "v1", Kind: "CronJobList"}, {Version: "v1", Kind: "ServiceList"}, {Version: "v1", Kind: "ConfigMapList"},
	{Version: "v1", Kind: "SecretList"}, {Version: "v1", Kind: "ServiceAccountList"}, {Version: "v1", Kind: "PersistentVolumeClaimList"},
	{Group: "multicluster.x-k8s.io", Version: "v1beta1", Kind: "ServiceExportList"},
}

// MemberLists returns empty metadata lists of memberKinds. A member that
// does not serve a kind (ServiceExports without the Multi-Cluster Services
// API) answers its list with a no-match error, which callers skip.
func MemberLists() []client.ObjectList {
	out := make([]client.ObjectList, 0, len(memberKinds))
	for _, gvk := range memberKinds {
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(gvk)
		out = append(out, l)
	}
	return out
}
