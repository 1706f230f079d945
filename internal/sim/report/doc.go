// Package report presents simulation results: the comparison table for a
// terminal, one JSON document, the raw series as CSV and JSON, and an HTML
// report whose charts (inline SVG, no script) follow seed 001's figures.
package report
