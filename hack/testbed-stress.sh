#!/usr/bin/env bash
# testbed-stress.sh starts and stops a testbed N times in a row while a
# background loop keeps the disk busy with synced writes, and prints how
# many starts passed. It is how a start-up race that shows on a busy
# machine (a component exiting because its API server answered too late)
# is reproduced and measured; see docs/testbed.md.
#
# Usage: hack/testbed-stress.sh [-n RUNS] [-p PROFILE] [-o FOLDER] [--no-disk-load]
#   -n RUNS         starts in a row (default 20)
#   -p PROFILE      testbed profile (default seed001)
#   -o FOLDER       where each run's output, and a failed run's component
#                   logs, are kept (default a new folder under /tmp)
#   --no-disk-load  start without the background writes
# MERIDIAN names the meridian binary (default bin/meridian, built when
# missing); TIMEOUT is each cluster's start timeout (default 3m, the
# default of 'meridian testbed up').
#
# Everything listens on 127.0.0.1; the testbed, the writer and its file are
# gone when the script ends, also when interrupted.
set -euo pipefail

runs=20
profile=seed001
out=""
disk_load=1
while (( $# > 0 )); do
  case "$1" in
    -n) runs="$2"; shift 2 ;;
    -p) profile="$2"; shift 2 ;;
    -o) out="$2"; shift 2 ;;
    --no-disk-load) disk_load=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument $1 (see $0 --help)" >&2; exit 2 ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "invalid -n $runs: want a positive number" >&2; exit 2; }

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
meridian="${MERIDIAN:-$root/bin/meridian}"
if [[ -z "${MERIDIAN:-}" && ! -x "$meridian" ]]; then
  go build -o "$meridian" ./cmd/meridian
fi
out="${out:-$(mktemp -d /tmp/testbed-stress.XXXXXX)}"
mkdir -p "$out"
work="$(mktemp -d /tmp/testbed-stress-work.XXXXXX)"
dir="$work/testbed"

writer=""
cleanup() {
  if [[ -n "$writer" ]]; then
    kill "$writer" 2>/dev/null || true
    wait "$writer" 2>/dev/null || true
  fi
  "$meridian" testbed down --dir "$dir" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if (( disk_load )); then
  # 64 MiB written with O_SYNC over and over: every write waits for the
  # disk, as etcd's fsyncs then do.
  ( while :; do dd if=/dev/zero of="$work/load" bs=1M count=64 oflag=sync status=none; done ) &
  writer=$!
fi

echo "testbed-stress: $runs starts of profile $profile, disk load $([[ $disk_load == 1 ]] && echo on || echo off), $(nproc) cores; output in $out"
passed=0
restarts=0
for i in $(seq 1 "$runs"); do
  log="$out/run-$i.log"
  start=$(date +%s)
  if "$meridian" testbed up --profile "$profile" --name stress --dir "$dir" --timeout "${TIMEOUT:-3m}" >"$log" 2>&1; then
    result=passed
    passed=$((passed + 1))
  else
    result=FAILED
    # The folder goes with 'down': keep what explains the failure.
    mkdir -p "$out/run-$i"
    for logs in "$dir"/kwok/clusters/*/logs; do
      [[ -d "$logs" ]] && cp -r "$logs" "$out/run-$i/$(basename "$(dirname "$logs")")"
    done
    cp -r "$dir/kwokctl" "$out/run-$i/" 2>/dev/null || true
  fi
  n=$(grep -c '^  [^ ]\+ \+restart ' "$log" || true)
  restarts=$((restarts + n))
  "$meridian" testbed down --dir "$dir" >>"$log" 2>&1
  echo "run $i/$runs: $result in $(( $(date +%s) - start ))s, $n component restarts"
  if [[ $result == FAILED ]]; then
    grep -m1 -A3 '^Error' "$log" | sed 's/^/    /' || true
  fi
done
echo "testbed-stress: $passed of $runs starts passed ($restarts component restarts); output in $out"
(( passed == runs ))
