// Command golangci-lint-kal is golangci-lint with kube-api-linter built in
// as a module plugin: the program `golangci-lint custom` would generate, kept
// here as a module so that `make lint` builds it with one `go build` from
// the Go module proxy (no git clone, no second build of golangci-lint).
// The versions of both are this module's go.mod's.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/golangci/golangci-lint/v2/pkg/commands"
	"github.com/golangci/golangci-lint/v2/pkg/exitcodes"

	// kube-api-linter registers itself as the "kubeapilinter" module
	// plugin that .golangci.yml enables for api/...
	_ "sigs.k8s.io/kube-api-linter"
)

func main() {
	if err := commands.Execute(buildInfo()); err != nil {
		fmt.Fprintf(os.Stderr, "The command is terminated due to an error: %v\n", err)
		os.Exit(exitcodes.Failure)
	}
}

// buildInfo reports golangci-lint's version as this module requires it, so
// that `golangci-lint-kal version` names the linter, not this wrapper.
func buildInfo() commands.BuildInfo {
	info := commands.BuildInfo{Version: "unknown", Commit: "meridian hack/lint", Date: "(unknown)", GoVersion: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	info.GoVersion = bi.GoVersion
	for _, dep := range bi.Deps {
		if dep.Path == "github.com/golangci/golangci-lint/v2" {
			info.Version = strings.TrimPrefix(dep.Version, "v")
		}
	}
	return info
}
