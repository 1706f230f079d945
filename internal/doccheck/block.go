package doccheck

import (
	"errors"
	"fmt"
	"strings"
)

// Marker is the line that makes the next fenced block of a page runnable.
const Marker = "<!-- doccheck: run -->"

// ErrMarker is returned for a marker that no fenced block follows, and for a
// runnable block that shows output before its first command.
var ErrMarker = errors.New("misplaced doccheck marker")

// A Block is a runnable block of a page.
type Block struct {
	// File is the page, as given to Parse.
	File string
	// Line is the line of the opening fence, counted from 1.
	Line int
	// Commands are the block's commands in order.
	Commands []Command
}

// A Command is one command of a runnable block and what the page shows it
// printing.
type Command struct {
	// Line is the command's line on the page, counted from 1.
	Line int
	// Text is the command as bash runs it, without its "$ " prompt; a line
	// that ends with a backslash continues on the next.
	Text string
	// Compare is false for a line of a script block, whose output the page
	// does not show.
	Compare bool
	// Want is the output the page shows, one string a line.
	Want []string
}

// Parse returns the runnable blocks of the page src, named file in errors.
func Parse(file string, src []byte) ([]Block, error) {
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	var blocks []Block
	marked := 0 // line of a marker waiting for its block, 0 if none
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		fence, info := openingFence(lines[i])
		switch {
		case fence != "":
			end := closingFence(lines, i+1, fence)
			if marked != 0 {
				indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
				b, err := parseBlock(file, i+1, info, lines[i+1:end], indent)
				if err != nil {
					return nil, err
				}
				blocks = append(blocks, b)
				marked = 0
			}
			i = end
		case trimmed == Marker:
			if marked != 0 {
				return nil, fmt.Errorf("%s:%d: %w: a second marker before a fenced block", file, marked, ErrMarker)
			}
			marked = i + 1
		case trimmed == "":
		case marked != 0:
			return nil, fmt.Errorf("%s:%d: %w: the next line that is not blank must open a fenced block (```console or ```sh)", file, marked, ErrMarker)
		}
	}
	if marked != 0 {
		return nil, fmt.Errorf("%s:%d: %w: no fenced block follows", file, marked, ErrMarker)
	}
	return blocks, nil
}

// openingFence returns the backticks that open a fenced block on line, and
// the block's info string, or "" when line opens none.
func openingFence(line string) (fence, info string) {
	t := strings.TrimLeft(line, " ")
	n := len(t) - len(strings.TrimLeft(t, "`"))
	if n < 3 {
		return "", ""
	}
	return t[:n], strings.TrimSpace(t[n:])
}

// closingFence returns the index of the line that closes a block opened
// with fence, searching from from; len(lines) when the page ends first.
func closingFence(lines []string, from int, fence string) int {
	for j := from; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if strings.HasPrefix(t, fence) && strings.Trim(t, "`") == "" {
			return j
		}
	}
	return len(lines)
}

// parseBlock reads the body of a runnable block whose fence is on line
// (from 1) with the info string info, its lines indented by indent spaces.
func parseBlock(file string, line int, info string, body []string, indent int) (Block, error) {
	b := Block{File: file, Line: line}
	for i := range body {
		body[i] = strings.TrimPrefix(body[i], strings.Repeat(" ", indent))
	}
	prompted := false
	for _, l := range body {
		if strings.HasPrefix(l, "$ ") {
			prompted = true
			break
		}
	}
	for i := 0; i < len(body); i++ {
		l := body[i]
		at := line + 1 + i
		switch {
		case prompted && strings.HasPrefix(l, "$ "):
			text, next := continued(body, i, strings.TrimPrefix(l, "$ "))
			i = next
			b.Commands = append(b.Commands, Command{Line: at, Text: text, Compare: true})
		case prompted:
			if len(b.Commands) == 0 {
				if strings.TrimSpace(l) == "" {
					continue
				}
				return Block{}, fmt.Errorf("%s:%d: %w: output before the first \"$ \" command of the block", file, at, ErrMarker)
			}
			c := &b.Commands[len(b.Commands)-1]
			c.Want = append(c.Want, l)
		case strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#"):
		default:
			text, next := continued(body, i, l)
			i = next
			b.Commands = append(b.Commands, Command{Line: at, Text: text})
		}
	}
	if len(b.Commands) == 0 {
		return Block{}, fmt.Errorf("%s:%d: %w: the ```%s block has no command", file, line, ErrMarker, info)
	}
	return b, nil
}

// continued joins the command that starts at body[i] as text with the lines
// its trailing backslashes continue it on; it returns the index of its last
// line.
func continued(body []string, i int, text string) (string, int) {
	for strings.HasSuffix(text, `\`) && i+1 < len(body) {
		i++
		text += "\n" + body[i]
	}
	return text, i
}
