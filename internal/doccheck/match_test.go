package doccheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	const table = "policy  pending max  cloud CPU·h  decide p50\n" +
		" mck8s        4.3%          7.8      15.4µs\n" +
		"meridian      0.7%          7.7      15.1µs\n"
	tests := []struct {
		name string
		want string
		got  string
		ok   bool
	}{
		{name: "the same", want: "a\nb", got: "a\nb\n", ok: true},
		{name: "spaces collapse", want: "policy pending max cloud CPU·h decide p50\nmck8s 4.3% 7.8 15.4µs\nmeridian 0.7% 7.7 15.1µs", got: table, ok: true},
		{name: "a figure the command no longer prints", want: "a\nb 4.3%", got: "a\nb 4.4%\n"},
		{name: "a line the command no longer prints", want: "a\nb\nc", got: "a\nc\n"},
		{name: "more output than shown", want: "a", got: "a\nb\n"},
		{name: "less output than shown", want: "a\nb", got: "a\n"},
		{name: "an elided line", want: "a\n...\nd", got: "a\nb\nc\nd\n", ok: true},
		{name: "an elision of no line", want: "a\n...\nb", got: "a\nb\n", ok: true},
		{name: "an elided end", want: "a\n...", got: "a\nb\nc\n", ok: true},
		{name: "an elided column", want: " mck8s 4.3% 7.8 ...\nmeridian 0.7% 7.7 ...", got: strings.Join(strings.Split(table, "\n")[1:], "\n"), ok: true},
		{name: "an elided column still checks the rest", want: " mck8s 4.3% 7.9 ...", got: " mck8s        4.3%          7.8      15.4µs\n"},
		{name: "an elided middle", want: "mck8s ... 15.4µs", got: " mck8s        4.3%          7.8      15.4µs\n", ok: true},
		{name: "lines out of order", want: "b\n...\na", got: "a\nb\n"},
		{name: "no output shown, none printed", want: "", got: "", ok: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Match(strings.Split(tc.want, "\n"), tc.got)
			if (err == nil) != tc.ok {
				t.Errorf("Match(%q, %q) = %v, want ok %v", tc.want, tc.got, err, tc.ok)
			}
		})
	}
}

// TestStaleBlock runs a page whose block shows a figure its command no
// longer prints, and one that shows what it prints: the first must fail.
func TestStaleBlock(t *testing.T) {
	tests := []struct {
		page  string
		stale bool
	}{
		{page: "stale.md", stale: true},
		{page: "fresh.md"},
	}
	for _, tc := range tests {
		t.Run(tc.page, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", tc.page))
			if err != nil {
				t.Fatal(err)
			}
			blocks, err := Parse(tc.page, src)
			if err != nil {
				t.Fatal(err)
			}
			failed := false
			for _, b := range blocks {
				for _, c := range b.Commands {
					stdout, stderr, err := run(t.Context(), ".", c.Text)
					if err != nil {
						t.Fatalf("%s: %v: %s", c.Text, err, stderr)
					}
					if err := Match(c.Want, stdout); err != nil {
						failed = true
						t.Logf("%s:%d: %v", b.File, c.Line, err)
					}
				}
			}
			if failed != tc.stale {
				t.Errorf("a block of %s failed: %v, want %v", tc.page, failed, tc.stale)
			}
		})
	}
}
