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
	"time"
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

// userHZ is the unit of the CPU times in /proc/<pid>/stat: Linux's
// USER_HZ, 100 on every architecture Go supports (sysconf(_SC_CLK_TCK)).
const userHZ = 100

// CPUTime reads the CPU time pid has used so far, in user and kernel mode
// (the utime and stime fields of /proc/<pid>/stat).
func CPUTime(pid int) (time.Duration, error) {
	path := fmt.Sprintf("/proc/%d/stat", pid)
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("failed to read %s: %w", path, err)
	}
	d, err := parseCPUTime(string(b))
	if err != nil {
		return 0, fmt.Errorf("failed to read %s: %w", path, err)
	}
	return d, nil
}

func parseCPUTime(stat string) (time.Duration, error) {
	// After "pid (comm) ", state is the first field; utime and stime are
	// the 14th and 15th of the line, so the 12th and 13th after comm.
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("no command in %q", stat)
	}
	fields := strings.Fields(stat[end+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("%d fields after the command, want at least 13", len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("CPU time %q is not a number of ticks", f)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}
