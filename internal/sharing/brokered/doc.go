// Package brokered tests brokered sharing end to end: real agents (package
// agent) that trade through a real broker (package broker), each cluster
// its own API server, every party writing with its own service account.
//
// It holds no code but these tests. They run both sides, and the broker
// must not import the agent: what the two share (closing an auction,
// pricing, judging an advertisement, reaching a peer) lives in package
// sharing and package remote, so neither copies the other's rules.
package brokered
