package workload

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// FuzzReadTrace reads task traces, as `meridian sim` does for a
// scenario's workload.trace: ReadTrace must not panic, a malformed row is
// a *TraceError naming its line and column, and the tasks it accepts are
// in range, ordered by submission, and read back the same after
// WriteTrace.
func FuzzReadTrace(f *testing.F) {
	for _, file := range []string{
		filepath.Join("..", "..", "..", "examples", "scenarios", "small-trace.csv"),
		filepath.Join("..", "scenario", "testdata", "minimal.csv"),
	} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	header := strings.Join(TraceColumns, ",") + "\n"
	f.Add([]byte(header + "a,0,1,Job,1,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		known := func(name string) bool { return name != "unknown" }
		tasks, err := ReadTrace(bytes.NewReader(data), "trace.csv", 10*time.Minute, known)
		if err != nil {
			var te *TraceError
			if errors.As(err, &te) && (te.Line < 1 || te.Column == "") {
				t.Fatalf("a trace error without its line and column: %v", err)
			}
			return
		}
		for i, task := range tasks {
			switch {
			case task.Name == "":
				t.Errorf("task %d has no name", i)
			case task.Submit < 0:
				t.Errorf("task %q is submitted at %v, before the start", task.Name, task.Submit)
			case task.Duration < time.Second:
				t.Errorf("task %q lasts %v, less than a second", task.Name, task.Duration)
			case task.MilliCPU < 1 || task.Memory < 1<<20 || task.Replicas < 1:
				t.Errorf("task %q requests %dm CPU, %d bytes, %d replicas", task.Name, task.MilliCPU, task.Memory, task.Replicas)
			case task.Kind != "Deployment" && task.Kind != "Job":
				t.Errorf("task %q is of kind %q", task.Name, task.Kind)
			}
		}
		if !slices.IsSortedFunc(tasks, func(a, b Task) int { return cmpDuration(a.Submit, b.Submit) }) {
			t.Errorf("tasks are not ordered by submission: %v", tasks)
		}
		var b bytes.Buffer
		if err := WriteTrace(&b, tasks); err != nil {
			t.Fatalf("failed to write accepted tasks: %v", err)
		}
		again, err := ReadTrace(&b, "again.csv", 10*time.Minute, known)
		if err != nil {
			t.Fatalf("ReadTrace refused what WriteTrace wrote: %v\n%s", err, b.String())
		}
		if diff := cmp.Diff(tasks, again, cmp.Comparer(nearDuration)); diff != "" {
			t.Errorf("tasks changed through WriteTrace and ReadTrace (-first +second):\n%s", diff)
		}
	})
}

func cmpDuration(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// nearDuration allows a nanosecond of rounding between seconds written as
// text and read back.
func nearDuration(a, b time.Duration) bool { return max(a-b, b-a) <= time.Nanosecond }
