// Package conditions sets the status conditions of Meridian's objects, for
// every controller alike: True or False from a boolean, the reason given
// (reasons are constants beside the API types), the message cut to what the
// API server accepts, and the generation the condition was computed from.
package conditions
