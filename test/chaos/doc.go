// Package chaos proves Meridian's controllers under faults on a real
// testbed: the controller process killed with SIGKILL at random moments
// while workloads are created, scaled, moved (substituted, burst and pulled
// back) and deleted, a member cut off and restored, and a member's API
// server killed and started again. After every fault it checks the members
// against the specs: no member object duplicated, lost or orphaned, and no
// replica counted twice.
//
// The tests start clusters and processes and take minutes; they are skipped
// in -short mode. See docs/chaos.md.
package chaos
