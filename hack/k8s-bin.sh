#!/usr/bin/env bash
# k8s-bin.sh builds the real Kubernetes binaries Meridian's tests and testbed run
# (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, etcd,
# kwok, kwokctl, metrics-server)
# from the Go module proxy into a folder keyed by version, once per machine.
# The module hack/k8s builds all but kwok and kwokctl (whose Kubernetes
# libraries are older than the release's): one module graph, so that their
# shared packages compile once, and kube-scheduler-meridian
# (hack/scheduler-bin.sh) finds them in the build cache.
# metrics-server's version is not in the folder's name: a binary of another
# version than hack/k8s pins is rebuilt in place.
#
# Usage: hack/k8s-bin.sh [DIR]   (default: bin/k8s/<kubernetes version>)
# Prints the folder on its last line; a binary already there is not rebuilt.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
k8s_version="$(awk '$1=="k8s.io/kubernetes"{print $2}' "$root/hack/k8s/go.mod")"
etcd_version="$(awk '$1=="go.etcd.io/etcd/server/v3"{print $2}' "$root/hack/k8s/go.mod")"
kwok_version="$(awk '$1=="require" && $2=="sigs.k8s.io/kwok"{print $3}' "$root/hack/kwok/go.mod")"
metrics_server_version="$(awk '$1=="sigs.k8s.io/metrics-server"{print $2}' "$root/hack/k8s/go.mod")"
dir="${1:-$root/bin/k8s/${k8s_version}-etcd${etcd_version}-kwok${kwok_version}}"
mkdir -p "$dir"

# Each line: binary name, module folder, main package.
targets=(
  "etcd hack/k8s go.etcd.io/etcd/server/v3"
  "kube-apiserver hack/k8s k8s.io/kubernetes/cmd/kube-apiserver"
  "kube-controller-manager hack/k8s k8s.io/kubernetes/cmd/kube-controller-manager"
  "kube-scheduler hack/k8s k8s.io/kubernetes/cmd/kube-scheduler"
  "kubectl hack/k8s k8s.io/kubernetes/cmd/kubectl"
  "kwok hack/kwok sigs.k8s.io/kwok/cmd/kwok"
  "kwokctl hack/kwok sigs.k8s.io/kwok/cmd/kwokctl"
  "metrics-server hack/k8s sigs.k8s.io/metrics-server/cmd/metrics-server"
)

# The Kubernetes binaries report their version from these variables; without
# them they say v0.0.0, which kwokctl and kubectl cannot reason about.
k8s_ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  k8s_ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$(cut -d. -f1 <<<"${k8s_version#v}")"
  k8s_ldflags+=" -X $pkg.gitMinor=$(cut -d. -f2 <<<"$k8s_version") -X $pkg.gitTreeState=clean"
done
# metrics-server reports its version from client-go's variables too; kwokctl
# runs it with --version before starting it.
v="k8s.io/client-go/pkg/version"
metrics_server_ldflags="-s -w -X $v.gitVersion=$metrics_server_version -X $v.gitMajor=$(cut -d. -f1 <<<"${metrics_server_version#v}")"
metrics_server_ldflags+=" -X $v.gitMinor=$(cut -d. -f2 <<<"$metrics_server_version") -X $v.gitTreeState=clean"

# built reports whether a usable binary is already there: for Kubernetes's
# own, one that reports the pinned version.
built() {
  local name="$1"
  [[ -x "$dir/$name" ]] || return 1
  case "$name" in
    kube-*) "$dir/$name" --version 2>/dev/null | grep -q "Kubernetes $k8s_version" ;;
    # Not piped into grep -q: kubectl would die of SIGPIPE when grep quits
    # first, and pipefail would take the binary as missing.
    kubectl) [[ "$("$dir/$name" version --client 2>/dev/null)" == *"Client Version: $k8s_version"* ]] ;;
    metrics-server) [[ "$("$dir/$name" --version 2>/dev/null)" == "$metrics_server_version" ]] ;;
  esac
}

# The binaries still missing, by module: one `go build` per module builds
# its binaries together (their shared packages compiled once, one binary
# linking while the next compiles), and the three modules build at the same
# time, so that no core waits on another's link.
declare -A missing=()
count=0
for t in "${targets[@]}"; do
  read -r name module pkg <<<"$t"
  if built "$name"; then
    echo "$name: already built" >&2
    continue
  fi
  missing[$module]+="$name=$pkg "
  count=$((count + 1))
done
if (( count == 0 )); then
  echo "$dir"
  exit 0
fi

# ldflags_of prints the link flags of a binary: Kubernetes's version for
# Kubernetes's own, metrics-server's for metrics-server. Link flags do not
# change compiled packages, so binaries of either kind share the cache.
ldflags_of() {
  case "$1" in
    etcd | kube-* | kubectl) echo "$k8s_ldflags" ;;
    metrics-server) echo "$metrics_server_ldflags" ;;
    *) echo "-s -w" ;;
  esac
}

build() { # module, then name=package pairs
  local module="$1"
  shift
  local out="$dir/.build-${module//\//-}"
  local n pkg base
  # One go build per set of link flags, one after another: the binaries of
  # one go build share its compiled packages (one linking while the next
  # compiles), and the next go build finds them in the build cache.
  local -A by_flags=()
  for n in "$@"; do by_flags["$(ldflags_of "${n%%=*}")"]+="$n "; done
  rm -rf "$out" && mkdir -p "$out"
  for flags in "${!by_flags[@]}"; do
    local pkgs=()
    for n in ${by_flags[$flags]}; do pkgs+=("${n#*=}"); done
    ( cd "$root/$module" && CGO_ENABLED=0 go build -trimpath -ldflags="$flags" -o "$out/" "${pkgs[@]}" )
  done
  # go build names each binary after its package's last element, a major
  # version suffix (/v3) left out.
  for n in "$@"; do
    pkg="${n#*=}"
    base="$(basename "$pkg")"
    [[ "$base" =~ ^v[0-9]+$ ]] && base="$(basename "$(dirname "$pkg")")"
    mv "$out/$base" "$dir/${n%%=*}"
  done
  rm -rf "$out"
}

start=$(date +%s)
pids=()
for module in "${!missing[@]}"; do
  names=""
  for n in ${missing[$module]}; do names+="${n%%=*} "; done
  echo "building ${names% } from $module (about 20 minutes on 2 cores for all, the first time)..." >&2
  # shellcheck disable=SC2086
  build "$module" ${missing[$module]} &
  pids+=($!)
done
status=0
while :; do
  running=0
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && running=$((running + 1)); done
  (( running == 0 )) && break
  sleep 15
  echo "      still building: $running of ${#pids[@]} modules ($(( $(date +%s) - start ))s)" >&2
done
for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
if (( status != 0 )); then
  echo "building the Kubernetes binaries failed" >&2
  exit "$status"
fi
echo "      done in $(( $(date +%s) - start ))s" >&2
echo "$dir"
