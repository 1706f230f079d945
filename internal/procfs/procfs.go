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
// of kB is an error.
func Memory(path string, keys ...string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %w", path, err)
	}
	defer f.Close()
	out, err := parseMemory(f, keys...)
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %w", path, err)
	}
	return out, nil
}

func parseMemory(r io.Reader, keys ...string) (map[string]int64, error) {
	out := map[string]int64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || !slices.Contains(keys, key) {
			continue
		}
		num, ok := strings.CutSuffix(strings.TrimSpace(val), " kB")
		if !ok {
			return nil, fmt.Errorf("%s is %q, want a number of kB", key, strings.TrimSpace(val))
		}
		kb, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s is %q, want a number of kB", key, strings.TrimSpace(val))
		}
		out[key] = kb << 10
	}
	return out, sc.Err()
}

// StatusPath is the path of pid's status file.
func StatusPath(pid int) string { return fmt.Sprintf("/proc/%d/status", pid) }

// SmapsRollupPath is the path of pid's smaps_rollup file.
func SmapsRollupPath(pid int) string { return fmt.Sprintf("/proc/%d/smaps_rollup", pid) }
