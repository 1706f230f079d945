// Package membertoken issues and renews the short-lived ServiceAccount
// tokens with which the controller reaches a member that `meridian join`
// joined. The token lives in the member's kubeconfig Secret in the
// management cluster, beside annotations that say whose it is and when it
// expires; the Cluster controller renews it through the member's
// TokenRequest API before it expires (decide.TokenRenewal says when), with
// the rights the token itself carries: create serviceaccounts/token for its
// own ServiceAccount, and nothing else of the kind.
package membertoken
