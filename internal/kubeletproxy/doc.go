// Package kubeletproxy is the kubelet endpoint of the consumer's virtual
// nodes: it serves the part of the kubelet API that `kubectl logs`,
// `kubectl exec`, `kubectl attach` and `kubectl port-forward` reach through
// the consumer's API server, for a pod bound to a virtual node, by asking
// the provider's API server the same of the pod's twin (pods/log,
// pods/exec, pods/attach, pods/portforward), with the consumer's
// credentials there.
//
// The routes, the parsing of their options and the streaming protocols
// (SPDY and WebSocket, as the API server speaks them to a kubelet) are
// the virtual-kubelet library's (node/api); what this package adds is
// where a pod's twin is (Locator), the calls into the provider and the
// kubelet's own guard:
//
//   - TLS, with a serving certificate given by the operator or, without
//     one, a self-signed certificate for the advertised address (an API
//     server checks a kubelet's certificate only when started with
//     --kubelet-certificate-authority);
//   - authentication of the caller as kubelet does it with webhook
//     authentication: a client certificate signed by the consumer's client
//     CA (what the API server presents, --kubelet-client-certificate; the
//     CA is read from kube-system/extension-apiserver-authentication and
//     followed when it changes) or a bearer token the consumer's API server
//     confirms (TokenReview); anonymous requests are refused;
//   - authorization as kubelet does it with webhook authorization: a
//     SubjectAccessReview in the consumer of verb (get for GET, create for
//     POST) on nodes/proxy of the virtual node the pod is bound to, the
//     right the API server's kubelet client holds (system:kubelet-api-admin
//     or cluster admin) and an ordinary user does not.
//
// Nothing of a pod is served that the pod's twin does not confirm: the
// twin must carry the consumer pod's UID, so a pod deleted and created
// again under the same name never reaches the old one's twin.
//
// The node-wide routes of a kubelet (/pods, /stats/summary,
// /metrics/resource, which `kubectl top` reads through metrics-server) are
// not served: every virtual node of an agent shares its address, so a
// scrape could not tell which node it asks for.
package kubeletproxy
