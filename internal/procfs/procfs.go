package procfs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// Children lists the pids of the live (not zombie) child processes of
// parent whose command is one of names, from /proc/*/stat.
func Children(parent int, names ...string) ([]int, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return nil, err
	}
	var found []int
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended while we looked
		}
		// Format: pid (comm) state ppid ...; comm may hold spaces and
		// parentheses, so it ends at the last ')'.
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) < 2 || fields[0] == "Z" || fields[1] != strconv.Itoa(parent) || !slices.Contains(names, s[open+1:end]) {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
		if err != nil {
			continue
		}
		found = append(found, pid)
	}
	return found, nil
}
