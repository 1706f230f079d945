package doccheck

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		page    string
		want    []Block
		wantErr error
	}{{
		name: "unmarked blocks are not run",
		page: "# Title\n\n```console\n$ rm -rf /\n```\n",
	}, {
		name: "a console block with output",
		page: "text\n\n" + Marker + "\n\n```console\n$ echo a\na\n\n$ printf 'b\\n'\nb\n```\n",
		want: []Block{{File: "p.md", Line: 5, Commands: []Command{
			{Line: 6, Text: "echo a", Compare: true, Want: []string{"a", ""}},
			{Line: 9, Text: `printf 'b\n'`, Compare: true, Want: []string{"b"}},
		}}},
	}, {
		name: "a script block: commands only, comments and blank lines skipped",
		page: Marker + "\n```sh\n# build\nmake help   # list\n\ngo version\n```\n",
		want: []Block{{File: "p.md", Line: 2, Commands: []Command{
			{Line: 4, Text: "make help   # list"},
			{Line: 6, Text: "go version"},
		}}},
	}, {
		name: "a command continued on the next line",
		page: Marker + "\n```console\n$ echo a \\\n  b\na b\n```\n",
		want: []Block{{File: "p.md", Line: 2, Commands: []Command{
			{Line: 3, Text: "echo a \\\n  b", Compare: true, Want: []string{"a b"}},
		}}},
	}, {
		name: "a block indented in a list",
		page: "- step\n\n  " + Marker + "\n  ```console\n  $ echo a\n  a\n  ```\n",
		want: []Block{{File: "p.md", Line: 4, Commands: []Command{
			{Line: 5, Text: "echo a", Compare: true, Want: []string{"a"}},
		}}},
	}, {
		name: "a marker shown inside a block is not a marker",
		page: "````md\n" + Marker + "\n```console\n$ false\n```\n````\n",
	}, {
		name:    "a marker followed by text",
		page:    Marker + "\nsome text\n```sh\necho\n```\n",
		wantErr: ErrMarker,
	}, {
		name:    "a marker at the end",
		page:    "text\n" + Marker + "\n",
		wantErr: ErrMarker,
	}, {
		name:    "output before the first command",
		page:    Marker + "\n```console\nhello\n$ echo hello\n```\n",
		wantErr: ErrMarker,
	}, {
		name:    "a block with no command",
		page:    Marker + "\n```sh\n# nothing\n```\n",
		wantErr: ErrMarker,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse("p.md", []byte(tc.page))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Parse() error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLinksOfAPage(t *testing.T) {
	page := "See [the guide](docs/guide.md#start) and ![a chart](docs/chart.png \"Chart\").\n" +
		"Not [this](https://example.com), [that](#here) or `[code](x.md)`.\n" +
		"```md\n[in a block](y.md)\n```\n" +
		"[ref]: examples/README.md\n"
	want := []Link{
		{Line: 1, Target: "docs/guide.md"},
		{Line: 1, Target: "docs/chart.png"},
		{Line: 6, Target: "examples/README.md"},
	}
	if diff := cmp.Diff(want, Links([]byte(page))); diff != "" {
		t.Errorf("Links() (-want +got):\n%s", diff)
	}
}
