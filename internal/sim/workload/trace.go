package workload

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/meridian-dev/meridian/internal/placement"
)

// TraceColumns are the columns of a task trace in CSV, in order. Times are
// in seconds from the start of the run, memory in MiB; an empty kind is
// derived from the duration and the service threshold, an empty location
// means none and empty replicas means one.
var TraceColumns = []string{"name", "submitSeconds", "durationSeconds", "kind", "cpuMilli", "memoryMiB", "replicas", "location"}

// TraceError is a malformed trace row: the file, line and column at fault.
type TraceError struct {
	File   string
	Line   int
	Column string
	Err    error
}

func (e *TraceError) Error() string {
	return fmt.Sprintf("%s:%d: column %s: %v", e.File, e.Line, e.Column, e.Err)
}

func (e *TraceError) Unwrap() error { return e.Err }

// ReadTrace reads a task trace in CSV; file names it in errors, an empty
// kind is derived with threshold, and known, when not nil, says which
// locations exist. Tasks come back ordered by submission.
func ReadTrace(r io.Reader, file string, threshold time.Duration, known func(string) bool) ([]Task, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("failed to read the header of %s: %w", file, err)
	}
	if !slices.Equal(header, TraceColumns) {
		return nil, &TraceError{File: file, Line: 1, Column: "header",
			Err: fmt.Errorf("got %q, want %q", strings.Join(header, ","), strings.Join(TraceColumns, ","))}
	}
	var tasks []Task
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// FieldPos is for records read without error: after a
			// csv.ParseError (which gives its own line) it panics.
			return nil, fmt.Errorf("failed to read %s: %w", file, err)
		}
		line, _ := cr.FieldPos(0)
		t, column, err := parseRow(rec, threshold)
		if err == nil && t.Location != "" && known != nil && !known(t.Location) {
			column, err = TraceColumns[7], fmt.Errorf("%q is not a cluster of the scenario", t.Location)
		}
		if err != nil {
			return nil, &TraceError{File: file, Line: line, Column: column, Err: err}
		}
		tasks = append(tasks, t)
	}
	slices.SortStableFunc(tasks, func(a, b Task) int { return int(a.Submit - b.Submit) })
	return tasks, nil
}

func parseRow(rec []string, threshold time.Duration) (Task, string, error) {
	if len(rec) != len(TraceColumns) {
		return Task{}, "*", fmt.Errorf("%d columns, want %d", len(rec), len(TraceColumns))
	}
	// The upper bounds keep the conversions to time.Duration, int64 bytes
	// and int32 replicas from overflowing into negative values.
	const maxSeconds, maxMilliCPU, maxMiB = 1e9, 1e12, 1e12
	number := func(i int, min, max float64) (float64, error) {
		v, err := strconv.ParseFloat(rec[i], 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q is not a number", rec[i])
		}
		if v < min {
			return 0, fmt.Errorf("%g: must be at least %g", v, min)
		}
		if v > max {
			return 0, fmt.Errorf("%g: must be at most %g", v, max)
		}
		return v, nil
	}
	t := Task{Name: rec[0], Location: rec[7], Replicas: 1}
	if t.Name == "" {
		return t, TraceColumns[0], fmt.Errorf("must not be empty")
	}
	submit, err := number(1, 0, maxSeconds)
	if err != nil {
		return t, TraceColumns[1], err
	}
	duration, err := number(2, 1, maxSeconds)
	if err != nil {
		return t, TraceColumns[2], err
	}
	t.Submit = time.Duration(math.Round(submit * float64(time.Second)))
	t.Duration = time.Duration(math.Round(duration * float64(time.Second)))
	switch placement.WorkloadKind(rec[3]) {
	case placement.KindDeployment, placement.KindJob:
		t.Kind = placement.WorkloadKind(rec[3])
	case "":
		t.Kind = placement.KindJob
		if t.Duration > threshold {
			t.Kind = placement.KindDeployment
		}
	default:
		return t, TraceColumns[3], fmt.Errorf("%q: must be %s, %s or empty", rec[3], placement.KindDeployment, placement.KindJob)
	}
	cpu, err := number(4, 1, maxMilliCPU)
	if err != nil {
		return t, TraceColumns[4], err
	}
	mem, err := number(5, 1, maxMiB)
	if err != nil {
		return t, TraceColumns[5], err
	}
	t.MilliCPU, t.Memory = int64(cpu), int64(mem*(1<<20))
	if rec[6] != "" {
		n, err := number(6, 1, math.MaxInt32)
		if err != nil {
			return t, TraceColumns[6], err
		}
		t.Replicas = int32(n)
	}
	return t, "", nil
}

// WriteTrace writes tasks as a CSV trace that ReadTrace reads back.
func WriteTrace(w io.Writer, tasks []Task) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(TraceColumns); err != nil {
		return err
	}
	for _, t := range tasks {
		rec := []string{
			t.Name,
			strconv.FormatFloat(t.Submit.Seconds(), 'f', -1, 64),
			strconv.FormatFloat(t.Duration.Seconds(), 'f', -1, 64),
			string(t.Kind),
			strconv.FormatInt(t.MilliCPU, 10),
			strconv.FormatFloat(float64(t.Memory)/(1<<20), 'f', -1, 64),
			strconv.Itoa(int(t.Replicas)),
			t.Location,
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
