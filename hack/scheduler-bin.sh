#!/usr/bin/env bash
# scheduler-bin.sh builds kube-scheduler with Meridian's learned Score plugin
# (hack/k8s/scheduler) into the folder of the other Kubernetes
# binaries, as kube-scheduler-meridian. Unlike hack/k8s-bin.sh it always
# builds: the binary holds Meridian's own code (internal/learn), which
# changes; Go's build cache makes a rebuild mostly a link. It is built from
# the module of the other binaries (hack/k8s) with k8s-bin.sh's flags
# (CGO_ENABLED=0, -trimpath, the version variables), so that Kubernetes's
# packages come from the cache that build left.
#
# Usage: hack/scheduler-bin.sh [DIR]   (default: bin/k8s/<kubernetes version>...)
# Prints the binary on its last line.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
k8s_version="$(awk '$1=="k8s.io/kubernetes"{print $2}' "$root/hack/k8s/go.mod")"
etcd_version="$(awk '$1=="go.etcd.io/etcd/server/v3"{print $2}' "$root/hack/k8s/go.mod")"
kwok_version="$(awk '$1=="require" && $2=="sigs.k8s.io/kwok"{print $3}' "$root/hack/kwok/go.mod")"
dir="${1:-$root/bin/k8s/${k8s_version}-etcd${etcd_version}-kwok${kwok_version}}"
mkdir -p "$dir"

ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$(cut -d. -f1 <<<"${k8s_version#v}")"
  ldflags+=" -X $pkg.gitMinor=$(cut -d. -f2 <<<"$k8s_version") -X $pkg.gitTreeState=clean"
done

name=kube-scheduler-meridian
start=$(date +%s)
echo "$name: building hack/k8s/scheduler..." >&2
( cd "$root/hack/k8s" && CGO_ENABLED=0 nice go build -trimpath -ldflags="$ldflags" -o "$dir/.$name.tmp" ./scheduler )
mv "$dir/.$name.tmp" "$dir/$name"
echo "$name: done in $(( $(date +%s) - start ))s" >&2
echo "$dir/$name"
