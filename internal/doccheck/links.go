package doccheck

import (
	"regexp"
	"strings"
)

// A Link is a relative link of a page: a file or folder of the repository.
type Link struct {
	// Line is the link's line on the page, counted from 1.
	Line int
	// Target is the link as written, without its #fragment or ?query.
	Target string
}

var (
	// inlineLink matches [text](target) and ![alt](target "title").
	inlineLink = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// referenceLink matches a reference definition, [name]: target.
	referenceLink = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+<?([^\s>]+)>?`)
	// codeSpan matches an inline code span, whose text is not a link.
	codeSpan = regexp.MustCompile("`+[^`]*`+")
)

// Links returns the relative links of the page src, outside fenced blocks
// and code spans. Links with a scheme (https:, mailto:) and links to a
// fragment of the same page are left out.
func Links(src []byte) []Link {
	lines := strings.Split(string(src), "\n")
	var links []Link
	for i := 0; i < len(lines); i++ {
		if fence, _ := openingFence(lines[i]); fence != "" {
			i = closingFence(lines, i+1, fence)
			continue
		}
		text := codeSpan.ReplaceAllString(lines[i], "")
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			targets = append(targets, m[1])
		}
		if m := referenceLink.FindStringSubmatch(text); m != nil {
			targets = append(targets, m[1])
		}
		for _, t := range targets {
			if strings.Contains(t, ":") || strings.HasPrefix(t, "#") {
				continue
			}
			t, _, _ = strings.Cut(t, "#")
			t, _, _ = strings.Cut(t, "?")
			links = append(links, Link{Line: i + 1, Target: t})
		}
	}
	return links
}
