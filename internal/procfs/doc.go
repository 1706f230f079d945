// Package procfs reads the memory figures of a process from Linux's /proc:
// the "Key:   123 kB" lines of /proc/PID/status and /proc/PID/smaps_rollup.
package procfs
