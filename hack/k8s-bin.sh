#!/usr/bin/env bash
# k8s-bin.sh builds the real Kubernetes binaries Meridian's tests and testbed run
# (kube-apiserver, kube-controller-manager, kube-scheduler, etcd, kwok, kwokctl)
# from the Go module proxy into a folder keyed by version, once per machine.
#
# Usage: hack/k8s-bin.sh [DIR]   (default: bin/k8s/<kubernetes version>)
# Prints the folder on its last line; a binary already there is not rebuilt.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
k8s_version="$(awk '$1=="k8s.io/kubernetes"{print $2}' "$root/hack/k8s/go.mod")"
etcd_version="$(awk '$1=="go.etcd.io/etcd/server/v3"{print $2}' "$root/hack/k8s/go.mod")"
kwok_version="$(awk '$1=="require" && $2=="sigs.k8s.io/kwok"{print $3}' "$root/hack/kwok/go.mod")"
dir="${1:-$root/bin/k8s/${k8s_version}-etcd${etcd_version}-kwok${kwok_version}}"
mkdir -p "$dir"

# Each line: binary name, module folder, main package.
targets=(
  "etcd hack/k8s go.etcd.io/etcd/server/v3"
  "kube-apiserver hack/k8s k8s.io/kubernetes/cmd/kube-apiserver"
  "kube-controller-manager hack/k8s k8s.io/kubernetes/cmd/kube-controller-manager"
  "kube-scheduler hack/k8s k8s.io/kubernetes/cmd/kube-scheduler"
  "kwok hack/kwok sigs.k8s.io/kwok/cmd/kwok"
  "kwokctl hack/kwok sigs.k8s.io/kwok/cmd/kwokctl"
)

total=${#targets[@]}
i=0
for t in "${targets[@]}"; do
  read -r name module pkg <<<"$t"
  i=$((i + 1))
  if [[ -x "$dir/$name" ]]; then
    echo "[$i/$total] $name: already built" >&2
    continue
  fi
  echo "[$i/$total] $name: building $pkg (this takes a few minutes the first time)..." >&2
  start=$(date +%s)
  # Build beside the final name and rename, so an interrupted build never
  # leaves a half-written binary that the next run would take as done.
  ( cd "$root/$module" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$dir/.$name.tmp" "$pkg" ) &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 15
    kill -0 "$pid" 2>/dev/null && echo "      $name: still building ($(( $(date +%s) - start ))s)" >&2
  done
  wait "$pid"
  mv "$dir/.$name.tmp" "$dir/$name"
  echo "      $name: done in $(( $(date +%s) - start ))s" >&2
done
echo "$dir"
