#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the module (a func FuzzXxx(f *testing.F)
# in a _test.go file, found anew on each run) for FUZZTIME each, one after
# the other, and ends with a table: package, target, executions, new
# interesting inputs, corpus size, result. docs/fuzzing.md lists the
# targets and the figures of the longer run.
#
# Usage: hack/fuzz.sh [regexp]   (only targets whose name matches)
#   FUZZTIME=10s       time per target (go test -fuzztime); FUZZTIME=5m is
#                      the documented longer run
#   FUZZMINIMIZETIME=1s  time to minimize a new interesting input; go's
#                      default of 60s stalls short runs on big inputs
#   FUZZPARALLEL=1     fuzzing workers per target
#
# go test -fuzz takes one target of one package per invocation, so each
# target is its own go test. A crash fails the run; go test writes the
# input to the package's testdata/fuzz/FuzzXxx/, where it stays as a
# regression case once the parser is fixed.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
fuzztime="${FUZZTIME:-10s}"
minimize="${FUZZMINIMIZETIME:-1s}"
parallel="${FUZZPARALLEL:-1}"
filter="${1:-.}"

# Discover the targets: every package of the module, every func Fuzz... in
# its test files.
targets=()
while read -r pkg dir; do
  while read -r name; do
    [[ -n "$name" && "$name" =~ $filter ]] && targets+=("$pkg $name")
  done < <(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(f \*testing\.F).*/\1/p' "$dir"/*_test.go 2>/dev/null | sort -u)
done < <(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' ./...)

if (( ${#targets[@]} == 0 )); then
  echo "no fuzz target matches ${filter}" >&2
  exit 1
fi
echo "fuzzing ${#targets[@]} targets for ${fuzztime} each (minimize ${minimize}, ${parallel} worker(s))"

module="$(go list -m)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
rows=()
failed=0
start=$(date +%s)
i=0
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  i=$((i + 1))
  short="${pkg#"$module"/}"
  printf '[%d/%d] %s %s ... ' "$i" "${#targets[@]}" "$short" "$name"
  t0=$(date +%s)
  result=ok
  if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" \
    -parallel "$parallel" "$pkg" >"$log" 2>&1; then
    result=FAIL
    # When -fuzztime ends while go minimizes a new interesting input, go
    # fails the run with "context deadline exceeded" and no failing input:
    # that is the clock, not a crash.
    if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written to' "$log"; then
      result=ok
      echo -n "(go's deadline during minimization) "
    else
      failed=$((failed + 1))
    fi
  fi
  secs=$(( $(date +%s) - t0 ))
  # The last progress line holds the totals, for example
  # "fuzz: elapsed: 10s, execs: 81234 (7912/sec), new interesting: 12 (total: 40)".
  last="$(grep '^fuzz: elapsed:' "$log" | tail -1 || true)"
  execs="$(sed -n 's/.*execs: \([0-9]*\).*/\1/p' <<<"$last")"
  new="$(sed -n 's/.*new interesting: \([0-9]*\).*/\1/p' <<<"$last")"
  total="$(sed -n 's/.*(total: \([0-9]*\)).*/\1/p' <<<"$last")"
  if [[ -z "$execs" ]]; then
    echo "$result in ${secs}s: the corpus replayed, FUZZTIME over before any new input"
  else
    echo "$result in ${secs}s: ${execs} execs, ${new:--} new interesting"
  fi
  if [[ "$result" == FAIL ]]; then
    sed -n '/^--- FAIL/,$p' "$log" | head -40
    grep -h 'Failing input written to' "$log" || true
  fi
  rows+=("$short|$name|${execs:--}|${new:--}|${total:--}|$result|${secs}s")
done

echo
echo "== fuzzing summary: ${#targets[@]} targets, ${failed} failed, FUZZTIME=${fuzztime}, in $(( $(date +%s) - start ))s =="
{
  echo "package|target|executions|new interesting|corpus|result|time"
  printf '%s\n' "${rows[@]}"
} | awk -F'|' '{ for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
  END { for (r = 1; r <= NR; r++) { line = ""; for (i = 1; i <= NF; i++) line = line sprintf("%-" w[i] + 2 "s", cell[r, i]); sub(/ +$/, "", line); print line } }'
(( failed == 0 ))
