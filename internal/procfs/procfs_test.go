package procfs

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseMemory(t *testing.T) {
	const status = "Name:\tmeridian\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t7\n"
	tests := []struct {
		name    string
		text    string
		keys    []string
		want    map[string]int64
		wantErr string
	}{
		{name: "keys in bytes, absent ones missing", text: status, keys: []string{"VmRSS", "VmHWM", "Pss"},
			want: map[string]int64{"VmRSS": 100 << 20, "VmHWM": 200 << 20}},
		{name: "a key that is not in kB", text: status, keys: []string{"Threads"}, wantErr: `Threads is "7", want a number of kB`},
		{name: "a value that is not a number", text: "VmRSS:\tmany kB\n", keys: []string{"VmRSS"}, wantErr: `VmRSS is "many kB"`},
		{name: "a key's prefix is another key", text: "Pss_Anon:\t5 kB\nPss:\t  8 kB\n", keys: []string{"Pss"},
			want: map[string]int64{"Pss": 8 << 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMemory(strings.NewReader(tt.text), tt.keys...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseMemory error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseMemory (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMemoryOfThisProcess(t *testing.T) {
	got, err := Memory(StatusPath(os.Getpid()), "VmRSS", "VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	if got["VmRSS"] <= 0 || got["VmHWM"] < got["VmRSS"] {
		t.Errorf("Memory of this test's process = %v, want 0 < VmRSS <= VmHWM", got)
	}
	if _, err := Memory(StatusPath(-1)); err == nil || !strings.Contains(err.Error(), "/proc/-1/status") {
		t.Errorf("Memory of a process that does not exist: %v, want an error naming the file", err)
	}
}

func TestChildren(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep command: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	got, err := Children(os.Getpid(), "sleep")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, cmd.Process.Pid) {
		t.Errorf("Children(self, sleep) = %v, want it to hold %d", got, cmd.Process.Pid)
	}
	if got, _ := Children(os.Getpid(), "not-a-command"); len(got) != 0 {
		t.Errorf("Children(self, not-a-command) = %v, want none", got)
	}
	if got, _ := Children(cmd.Process.Pid, "sleep"); len(got) != 0 {
		t.Errorf("the sleep has no children, got %v", got)
	}
}

func TestParseCPUTime(t *testing.T) {
	// utime 250 and stime 50 ticks: 3 seconds; the command holds a space
	// and a parenthesis.
	stat := "4242 (meridian (x) y) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 0 0 20 0 12 0 100 0 0"
	got, err := parseCPUTime(stat)
	if err != nil {
		t.Fatal(err)
	}
	if got != 3*time.Second {
		t.Errorf("parseCPUTime = %s, want 3s", got)
	}
	if _, err := parseCPUTime("4242 (short) S 1 2"); err == nil {
		t.Error("parseCPUTime of a short line: no error")
	}
}

func TestCPUTimeOfThisProcess(t *testing.T) {
	// Spin until the kernel has counted some CPU time.
	deadline := time.Now().Add(5 * time.Second)
	for x := 0; time.Now().Before(deadline); x++ {
		got, err := CPUTime(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if got > 0 {
			return
		}
	}
	t.Error("CPUTime of this process stayed 0 for 5 s of spinning")
}
