#!/usr/bin/env bash
# debian-bin.sh prints the path of a program the tests run from Debian's
# packages (Prometheus, Chromium), installing the package when the program
# is not found.
#
# Usage: hack/debian-bin.sh PROGRAM PACKAGE ENV_VAR
# Looks at $ENV_VAR, then PATH, then /usr/bin/PROGRAM; prints the program on
# its last line. Installing needs root or password-less sudo.
set -euo pipefail

program="$1" package="$2" env_var="$3"
me="debian-bin.sh ($program)"

# usable reports whether $1 is the program and runs here.
usable() {
  [[ -n "$1" && -x "$1" ]] && "$1" --version >/dev/null 2>&1
}

for candidate in "${!env_var:-}" "$(command -v "$program" || true)" "/usr/bin/$program"; do
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
  echo "$me: no $program found and cannot install one: not root and no password-less sudo;" >&2
  echo "$me: install Debian's package by hand (apt-get install $package) or set $env_var to the program" >&2
  exit 1
fi

echo "$me: installing Debian's $package package (once per machine)..." >&2
if ! { "${as_root[@]}" apt-get update -q && \
       "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$package"; } >&2; then
  echo "$me: 'apt-get install $package' failed; see its output above" >&2
  exit 1
fi

if ! usable "/usr/bin/$program"; then
  echo "$me: Debian's $package package is installed but /usr/bin/$program does not run" >&2
  exit 1
fi
echo "/usr/bin/$program"
