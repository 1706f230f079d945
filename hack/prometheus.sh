#!/usr/bin/env bash
# prometheus.sh prints the path of a Prometheus server binary for the tests
# that query a real Prometheus (internal/traffic), installing Debian's
# `prometheus` package when none is found.
#
# Usage: hack/prometheus.sh
# Looks at MERIDIAN_PROMETHEUS, then PATH, then /usr/bin/prometheus; prints
# the binary on its last line. Installing needs root or password-less sudo.
set -euo pipefail

# usable reports whether $1 is a Prometheus server that runs here.
usable() {
  [[ -n "$1" && -x "$1" ]] && "$1" --version >/dev/null 2>&1
}

for candidate in "${MERIDIAN_PROMETHEUS:-}" "$(command -v prometheus || true)" /usr/bin/prometheus; do
  if usable "$candidate"; then
    echo "$candidate"
    exit 0
  fi
done

if [[ "$(id -u)" == 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "prometheus.sh: no prometheus binary found and cannot install one: not root and no password-less sudo;" >&2
  echo "prometheus.sh: install Debian's package by hand (apt-get install prometheus) or set MERIDIAN_PROMETHEUS to a prometheus binary" >&2
  exit 1
fi

echo "prometheus.sh: installing Debian's prometheus package (once per machine)..." >&2
if ! { "${as_root[@]}" apt-get update -q && \
       "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus; } >&2; then
  echo "prometheus.sh: 'apt-get install prometheus' failed; see its output above" >&2
  exit 1
fi

if ! usable /usr/bin/prometheus; then
  echo "prometheus.sh: Debian's prometheus package is installed but /usr/bin/prometheus does not run" >&2
  exit 1
fi
echo /usr/bin/prometheus
