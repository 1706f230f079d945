#!/usr/bin/env bash
# prometheus.sh prints the path of a Prometheus server binary for the tests
# that query a real Prometheus (internal/traffic), installing Debian's
# `prometheus` package when none is found (hack/debian-bin.sh).
#
# Usage: hack/prometheus.sh
# Looks at MERIDIAN_PROMETHEUS, then PATH, then /usr/bin/prometheus; prints
# the binary on its last line. Installing needs root or password-less sudo.
exec "$(dirname "$0")/debian-bin.sh" prometheus prometheus MERIDIAN_PROMETHEUS
