package doccheck

import (
	"fmt"
	"regexp"
	"strings"
)

// Elision is what a page writes for what it leaves out of a command's
// output: a whole line of it stands for any number of lines, and inside a
// line it stands for any text.
const Elision = "..."

// Match returns nil when got, a command's output, shows as want, the lines a
// page shows for it (see the package documentation), and otherwise an error
// that names the first line of want that the output does not have.
func Match(want []string, got string) error {
	w := normalize(want)
	raw := strings.TrimRight(got, "\n")
	g := normalize(strings.Split(got, "\n"))
	m := matcher{want: w, got: g, memo: map[[2]int]bool{}}
	patterns := make([]*regexp.Regexp, len(w))
	for i, l := range w {
		if l != Elision && strings.Contains(l, Elision) {
			patterns[i] = linePattern(l)
		}
	}
	m.patterns = patterns
	if m.match(0, 0) {
		return nil
	}
	if m.furthest == len(w) {
		return fmt.Errorf("the command printed %d more lines than the page shows (end the block with a line %q to allow them); it printed:\n%s",
			len(g)-m.furthestGot, Elision, raw)
	}
	return fmt.Errorf("shown line %d, %q, is not in the output at that place; the command printed:\n%s",
		m.furthest+1, w[m.furthest], raw)
}

type matcher struct {
	want, got []string
	patterns  []*regexp.Regexp
	memo      map[[2]int]bool
	// furthest is the most lines of want matched by any attempt, and
	// furthestGot the lines of got they used.
	furthest, furthestGot int
}

// match reports whether want[i:] shows got[j:].
func (m *matcher) match(i, j int) bool {
	if i > m.furthest || (i == m.furthest && j > m.furthestGot) {
		m.furthest, m.furthestGot = i, j
	}
	if i == len(m.want) {
		return j == len(m.got)
	}
	key := [2]int{i, j}
	if ok, seen := m.memo[key]; seen {
		return ok
	}
	ok := false
	switch {
	case m.want[i] == Elision:
		for k := j; k <= len(m.got) && !ok; k++ {
			ok = m.match(i+1, k)
		}
	case j < len(m.got) && m.lineMatches(i, m.got[j]):
		ok = m.match(i+1, j+1)
	}
	m.memo[key] = ok
	return ok
}

func (m *matcher) lineMatches(i int, got string) bool {
	if p := m.patterns[i]; p != nil {
		return p.MatchString(got)
	}
	return m.want[i] == got
}

// linePattern is the regular expression of a shown line with elisions in it.
func linePattern(line string) *regexp.Regexp {
	parts := strings.Split(line, Elision)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(strings.TrimSpace(p))
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

// normalize collapses each line's runs of spaces into one, trims its ends,
// and drops the blank lines at the end.
func normalize(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, strings.Join(strings.Fields(l), " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
