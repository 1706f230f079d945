// Package doccheck keeps the documentation honest: it runs the commands that
// the README and docs/*.md show in blocks marked as runnable and compares
// what they print with what the block shows, and it checks that every
// relative link of those pages leads to a file.
//
// A block is runnable when the line before its opening fence (blank lines
// aside) is the HTML comment
//
//	<!-- doccheck: run -->
//
// which Markdown renders as nothing. In a runnable block, a line that starts
// with "$ " is a command, run by bash from the repository's root in a shell
// of its own (without make's variables, as from a reader's shell), and the
// lines after it, up to the next command, are what it prints on standard
// output (standard error, where progress goes, is not compared). A block
// without "$ " lines is a script: each line that is not blank or a comment
// is a command whose output is not compared. A command must exit 0.
//
// Output is compared line by line, with runs of spaces counted as one so
// that a table whose columns widen still matches. Two elisions say what the
// page leaves out:
//
//   - a line that is only "..." stands for any number of lines, none
//     included;
//   - "..." inside a line stands for any text, as for a column of wall
//     times that changes from run to run.
//
// Every other line must be there, in order, and nothing may follow the last
// one unless the block ends with "...". So a block whose figures the command
// no longer prints fails, naming the page, the line and what was printed.
//
// Mark only blocks that need no testbed and run in seconds: the check runs in
// `go test ./...`, and so in `make test`.
package doccheck
