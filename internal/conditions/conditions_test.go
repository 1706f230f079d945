package conditions_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meridian-dev/meridian/internal/conditions"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{name: "short enough", s: "hello", n: 5, want: "hello"},
		{name: "cut with an ellipsis", s: "hello world", n: 8, want: "hello..."},
		{name: "never inside a UTF-8 sequence", s: "ab€€€", n: 7, want: "ab..."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, conditions.Truncate(tc.s, tc.n)); diff != "" {
				t.Errorf("Truncate(%q, %d) (-want +got):\n%s", tc.s, tc.n, diff)
			}
		})
	}
}

func TestSet(t *testing.T) {
	var conds []metav1.Condition
	if !conditions.Set(&conds, 3, "Ready", true, "Fine", strings.Repeat("x", conditions.MaxMessage+10)) {
		t.Fatal("Set() = false on a new condition, want true")
	}
	got := conds[0]
	type view struct {
		Status     metav1.ConditionStatus
		Reason     string
		Generation int64
		Length     int
	}
	want := view{Status: metav1.ConditionTrue, Reason: "Fine", Generation: 3, Length: conditions.MaxMessage}
	if diff := cmp.Diff(want, view{got.Status, got.Reason, got.ObservedGeneration, len(got.Message)}); diff != "" {
		t.Errorf("Set() (-want +got):\n%s", diff)
	}
	if conditions.Set(&conds, 3, "Ready", true, "Fine", got.Message) {
		t.Error("Set() = true with nothing new, want false")
	}
}
