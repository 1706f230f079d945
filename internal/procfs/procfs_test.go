package procfs

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMemory(t *testing.T) {
	got, err := ParseMemory(strings.NewReader("Name:\tmeridian\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t7\n"), "VmRSS", "VmHWM", "Pss")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int64{"VmRSS": 100 << 20, "VmHWM": 200 << 20}, got); diff != "" {
		t.Errorf("ParseMemory (-want +got):\n%s", diff)
	}
	if _, err := ParseMemory(strings.NewReader("VmRSS:\tmany kB\n"), "VmRSS"); err == nil || !strings.Contains(err.Error(), "VmRSS") {
		t.Errorf("ParseMemory of a value that is not a number: %v, want an error naming VmRSS", err)
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
	if _, err := Memory(StatusPath(-1)); err == nil {
		t.Error("Memory of a process that does not exist: no error")
	}
}
