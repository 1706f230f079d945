#!/usr/bin/env bash
# helm-bin.sh builds the helm binary that the chart tests run (helm lint,
# helm template, helm install into the testbed) from the Go module proxy, at
# the version hack/k8s/go.mod pins, into bin/helm/<version>/, once per
# machine. It is built from the module of the Kubernetes binaries (hack/k8s)
# with their flags, so that the Kubernetes libraries it shares with them
# come from the build cache.
#
# Usage: hack/helm-bin.sh [DIR]   (default: bin/helm/<helm version>)
# Prints the binary on its last line; a binary already there is not rebuilt.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(awk '$1=="helm.sh/helm/v4"{print $2}' "$root/hack/k8s/go.mod")"
dir="${1:-$root/bin/helm/$version}"
mkdir -p "$dir"

if [[ ! -x "$dir/helm" ]]; then
  start=$(date +%s)
  echo "helm $version: building (a few minutes the first time)..." >&2
  ( cd "$root/hack/k8s" && CGO_ENABLED=0 nice go build -trimpath \
      -ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=$version" \
      -o "$dir/.helm.tmp" helm.sh/helm/v4/cmd/helm )
  mv "$dir/.helm.tmp" "$dir/helm"
  echo "helm $version: done in $(( $(date +%s) - start ))s" >&2
fi
echo "$dir/helm"
