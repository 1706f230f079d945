// Package procfs reads the memory figures of a process from Linux's /proc:
// the "Key:   123 kB" lines of /proc/PID/status and /proc/PID/smaps_rollup.
package procfs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Memory reads the given keys of a /proc file whose lines are "Key: N kB"
// (status, smaps_rollup) and returns them in bytes. A key the file does
// not have is missing from the result; a key whose value is not a number
// is an error.
func Memory(path string, keys ...string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseMemory(f, keys...)
}

// ParseMemory is Memory on what was read.
func ParseMemory(r io.Reader, keys ...string) (map[string]int64, error) {
	out := map[string]int64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || !slices.Contains(keys, key) {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("invalid %s line %q: %w", key, sc.Text(), err)
		}
		out[key] = kb << 10
	}
	return out, sc.Err()
}

// StatusPath is the path of pid's status file.
func StatusPath(pid int) string { return fmt.Sprintf("/proc/%d/status", pid) }

// SmapsRollupPath is the path of pid's smaps_rollup file.
func SmapsRollupPath(pid int) string { return fmt.Sprintf("/proc/%d/smaps_rollup", pid) }
