// Package cli builds the meridian command: one file per subcommand, each
// with a constructor that the root command adds.
package cli
