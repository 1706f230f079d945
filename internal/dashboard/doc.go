// Package dashboard is Meridian's web UI: a read-only, live view of a
// management cluster through its API server (issue 17). One page per
// capability: members with capacity and health; workloads with their
// placement per cluster and the explanation (filters, scores, plugin
// scores); pending replicas; cloud clusters with their node pools and the
// timeline of bursts and pull-backs; sharing (peers, advertisements,
// reservations, virtual nodes); CloudVM decisions with their carbon against
// the start-at-once counterfactual; and the advice of the learned scorer
// and of the optimizer.
//
// The server knows a fixed set of resources (Resources) and only lists and
// watches them: no handler writes, and a request for anything else is
// refused. GET /api/watch?resource=R streams the resource as
// newline-delimited JSON: one "SYNC" message with every object, then one
// message per change ("ADDED", "MODIFIED", "DELETED"), re-listing when the
// API server ends or expires the watch, and a "PING" every 15 s so that
// proxies keep the stream open. The page applies the changes as they come:
// no reload.
//
// Credentials are the viewer's own: `meridian dashboard` runs with the
// kubeconfig of the person who starts it, on loopback; served by the
// controller (--dashboard-bind-address), it reads with the bearer token
// each request carries (the page asks for one), never with the
// controller's own rights, so RBAC decides what each viewer sees.
package dashboard
