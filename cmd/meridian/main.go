// Package main builds meridian, Meridian's single binary; see `meridian --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/meridian-dev/meridian/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cli.NewRootCommand().ExecuteContext(ctx); err != nil {
		os.Exit(1)
	}
}
