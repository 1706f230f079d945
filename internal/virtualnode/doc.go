// Package virtualnode is the consumer side of Meridian's resource sharing
// (seed 002, ch. 5-6): the virtual nodes made from a provider's accepted
// advertisements, and the reflection of the pods bound to them into the
// provider.
//
// # Virtual nodes
//
// NodeReconciler reconciles the Advertisements of one provider. On every
// pass PlanNodes, a pure function of the advertisement, its Peer, the
// nodes made from it before and the time, decides the nodes: one real
// Node per slice sharing.Slice makes of the accepted shapes
// (status.decision Accepted, status.acceptedShapes), never one node for a
// whole peer, each with the allocatable of one provider node's slice, so
// any set of pods the consumer's scheduler binds to it fits that provider
// node. Nodes carry sharing's labels (provider, advertisement, shape,
// region, zone, prices, currency) and the taint
// sharing.meridian.dev/virtual-node=<provider>:NoSchedule that workloads
// opt into. They are Ready while the Peer whose namespace holds the
// advertisement is reachable, and renew a Lease in kube-node-lease as
// kubelet does. When the advertisement expires, is refused or deleted, or
// stops advertising a slice, its node is cordoned, its pods are evicted
// (their controllers recreate them elsewhere) and, once no pod is left, the
// node and its Lease are deleted. Nodes are derived from the
// advertisements every pass and found by their labels, so a restart
// neither loses nor duplicates one; the advertisement, which the provider
// owns, carries no finalizer.
//
// OfferNodeReconciler does the same for the auctions the consumer won
// from the provider: PlanOfferNodes makes one node per replica of every
// component of the won Quote, of that replica's requests and one pod slot,
// while the provider confirmed the acknowledgement (read in
// Options.ProviderNamespace of the provider), no Release names the offer
// and its expiresAt (the Reservation's, once confirmed) has not passed.
//
// # Pod reflection
//
// PodReflector is the kubelet of those nodes. A pod bound to one gets a
// twin in the provider (Twin, a pure function): the same name, in
// TwinNamespace(consumer, namespace), with the containers' requests,
// limits, env, command, args, ports and volume mounts and the pod's
// volumes intact; the ConfigMaps and Secrets it references (ReferencesOf)
// are copied beside it, copied again when they change (their metadata is
// watched, the copied resourceVersion remembered) and deleted from the
// provider with the last twin that references them. The service account
// and its token are not
// (automountServiceAccountToken false), nor what names only consumer
// objects (node binding, affinities, virtual-node selectors and
// toleration, priority class). The twin is labelled
// sharing.meridian.dev/consumer, so the provider counts it in that
// consumer's ledger and never reflects it again, and it keeps off the
// provider's own virtual nodes. It carries the consumer pod's UID
// (LabelOriginUID), so a restarted reflector finds it again: no duplicate,
// none lost.
//
// ConsumerStatus, a pure function, is the status the consumer pod shows:
// the twin's phase, conditions, pod IPs and container statuses, plus the
// PodReflected condition. Deletion goes both ways: a consumer pod being
// deleted has its twin deleted, then is itself deleted, as kubelet
// confirms a deletion; a twin deleted in the provider turns a reflected
// pod Failed (reason ProviderPodDeleted), as kubelet reports a pod it can
// no longer run, and a failed twin's phase flows back as it is.
//
// Logs and exec: `kubectl logs`, `exec`, `attach` and `port-forward` on an
// offloaded pod reach the kubelet endpoint of its node, which every virtual
// node advertises when Options.Kubelet is set (an InternalIP address and
// status.daemonEndpoints): the agent's, package kubeletproxy, which asks
// the provider for the same of the twin.
//
// # Registering
//
// The agent (agent.SetupVirtualNodes) serves each provider Peer, also one
// created while it runs: a manager on the provider's API server, reached
// with the credentials of the Peer's credentialsSecretRef and its cache
// restricted with ProviderCacheOptions, and
//
//	virtualnode.Setup(consumerMgr, providerMgr, virtualnode.Options{
//		ConsumerID: "<this cluster>", ProviderID: peer.Spec.ClusterID,
//		AuctionNamespace: "<agent namespace>", ProviderNamespace: "<kubeconfig's namespace>",
//	})
//
// Setup may be called once per provider on the same consumer manager;
// IndexPods must run before that manager starts when Setup runs after.
package virtualnode

// The consumer's rights of the virtual nodes (the agent's role; what is
// written in a provider goes through the peer's own credentials):
//
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=nodes/status,verbs=patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups="",resources=pods/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=pods/eviction,verbs=create
// +kubebuilder:rbac:groups="",resources=configmaps;secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=sharing.meridian.dev,resources=advertisements/status,verbs=patch
