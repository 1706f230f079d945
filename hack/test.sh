#!/usr/bin/env bash
# test.sh runs Meridian's tests, unit and envtest (real API servers from
# `make k8s-bin`, a real Prometheus from `make prometheus`, helm from
# `make helm-bin`, Chromium from `make chromium`), streams go test's output and ends with a summary.
#
# Usage: hack/test.sh [packages...]   (default ./...)
# GO_TEST_FLAGS adds flags to go test, for example GO_TEST_FLAGS=-race.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export KUBEBUILDER_ASSETS="${KUBEBUILDER_ASSETS:-$(hack/k8s-bin.sh 2>/dev/null | tail -1)}"
echo "Kubernetes binaries: $KUBEBUILDER_ASSETS"
export MERIDIAN_PROMETHEUS="${MERIDIAN_PROMETHEUS:-$(hack/prometheus.sh | tail -1)}"
echo "Prometheus: $MERIDIAN_PROMETHEUS"
export MERIDIAN_HELM="${MERIDIAN_HELM:-$(hack/helm-bin.sh | tail -1)}"
echo "helm: $MERIDIAN_HELM"
export MERIDIAN_CHROMIUM="${MERIDIAN_CHROMIUM:-$(hack/debian-bin.sh chromium chromium MERIDIAN_CHROMIUM | tail -1)}"
echo "Chromium: $MERIDIAN_CHROMIUM"

# With no packages named, the longest-running ones are named first: go test
# starts packages in the order given, and a long one started last would
# leave one core idle while it ends. The list is the slowest of the summary
# below (make test prints it); a package missing from it is only later.
slow=(./test/e2e ./test/chaos ./internal/testbed ./internal/bench ./internal/sharing/agent
  ./internal/controller/multiclusterdeployment ./internal/controller/multiclusterhpa)
if [[ $# -eq 0 || ( $# -eq 1 && "$1" == ./... ) ]]; then
  set -- "${slow[@]}" ./...
fi

# The tests build as the Kubernetes binaries, helm and make lint do
# (CGO_ENABLED=0, -trimpath; hack/k8s pins the same versions of the
# modules they share): the packages they have in common (client-go,
# apimachinery, and the rest) compile once for all of them. The go build
# and go run the tests start inherit it.
export CGO_ENABLED=0
export GOFLAGS="-trimpath${GOFLAGS:+ $GOFLAGS}"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
start=$(date +%s)
status=0
# -vet=off: go test's vet checks are a subset of golangci-lint's govet,
# which `make lint` runs on every package, tests included, before this.
# -ldflags='-s -w': test binaries without a symbol table and DWARF link
# about a third faster (a stack trace still names every function); with
# a hundred test binaries that is a minute and a half of a cold run.
# shellcheck disable=SC2086
go test -count=1 -timeout 60m -vet=off -ldflags='-s -w' ${GO_TEST_FLAGS:-} "$@" 2>&1 | tee "$log" || status=$?
if [[ "${*: -1}" == "./..." ]]; then
  # The learned kube-scheduler plugin is in the module hack/k8s (it imports
  # Kubernetes' scheduler); built as hack/scheduler-bin.sh builds it, so
  # that Kubernetes' packages come from the build cache.
  # shellcheck disable=SC2086
  (cd hack/k8s && go test -count=1 ${GO_TEST_FLAGS:-} ./scheduler/...) 2>&1 | tee -a "$log" || status=$?
  # Every fuzz target's seed corpus (testdata/fuzz included) ran above as
  # ordinary tests; fuzzing itself is `make fuzz` (docs/fuzzing.md), whose
  # one build per target cost minutes here for seconds of fuzzing.
fi

passed=$(grep -c '^ok ' "$log" || true)
failed=$(grep -c '^FAIL\s' "$log" || true)
notests=$(grep -c '^?' "$log" || true)
echo
echo "== summary: $passed packages passed, $failed failed, $notests without tests, in $(( $(date +%s) - start ))s =="
echo "== the ten slowest packages =="
grep -E '^(ok|FAIL)\s' "$log" | awk '{ t = $3; if (t ~ /s$/) { sub(/s$/, "", t); printf "%8.1fs  %s\n", t, $2 } }' | sort -rn | head -10 || true
if (( failed > 0 )); then
  grep -E '^(--- FAIL|FAIL\s)' "$log" || true
fi
exit "$status"
