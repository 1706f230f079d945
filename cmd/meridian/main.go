// Command meridian is Meridian's single binary; see `meridian --help`.
package main

import (
	"os"

	"github.com/meridian-dev/meridian/internal/cli"
)

func main() {
	if err := cli.NewRootCommand().Execute(); err != nil {
		os.Exit(1)
	}
}
