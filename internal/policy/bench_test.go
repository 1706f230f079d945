package policy

import (
	"io"
	"testing"
)

// BenchmarkVM measures one VM decision on the default bundle, decision log
// (to a discarding writer) and metrics included.
func BenchmarkVM(b *testing.B) {
	e, err := New(b.Context(), Options{}, WithDecisionWriter(io.Discard))
	if err != nil {
		b.Fatal(err)
	}
	in := VMInput{Name: "ns/vm", CPUMilli: 2000, MemoryMiB: 8192, OriginRegion: "westeurope", MaxLatencyMs: 30, Residency: "EU"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.VM(b.Context(), in); err != nil {
			b.Fatal(err)
		}
	}
}
