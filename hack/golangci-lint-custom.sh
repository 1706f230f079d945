#!/usr/bin/env bash
# golangci-lint-custom.sh builds golangci-lint with kube-api-linter built in,
# as .custom-gcl.yml describes, with `golangci-lint custom`.
#
# Usage: hack/golangci-lint-custom.sh GOLANGCI_LINT OUTPUT
#   GOLANGCI_LINT  the plain golangci-lint binary of .custom-gcl.yml's version
#   OUTPUT         the binary to build (.custom-gcl.yml's destination/name)
#
# `golangci-lint custom` clones golangci-lint's repository from GitHub at the
# version's tag. The build reads golangci-lint's source from the Go module
# proxy instead (the same tree, checked against go.sum's database), as a
# local git repository with that tag, and points git's clone at it through
# url.insteadOf: the build needs only the module proxy, which every other
# tool of the Makefile already needs.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
gcl="$1"
out="$2"
version="$(sed -n 's/^version: *//p' .custom-gcl.yml)"
name="$(sed -n 's/^name: *//p' .custom-gcl.yml)"
if [[ "$("$gcl" version --short 2>/dev/null || "$gcl" --version)" != *"${version#v}"* ]]; then
  echo "golangci-lint-custom.sh: $gcl is not version $version of .custom-gcl.yml" >&2
  exit 1
fi
if [[ "$(basename "$out")" != "$name" ]]; then
  echo "golangci-lint-custom.sh: $out is not .custom-gcl.yml's name $name; keep the Makefile and .custom-gcl.yml in step" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
src="$(go mod download -json "github.com/golangci/golangci-lint/v2@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
if [[ -z "$src" ]]; then
  echo "golangci-lint-custom.sh: the module proxy has no github.com/golangci/golangci-lint/v2@$version" >&2
  exit 1
fi
cp -r "$src" "$work/golangci-lint"
chmod -R u+w "$work/golangci-lint"
git -C "$work/golangci-lint" init -q
git -C "$work/golangci-lint" add -A
git -C "$work/golangci-lint" -c user.name=meridian -c user.email=meridian@localhost commit -q -m "golangci-lint $version from the Go module proxy"
git -C "$work/golangci-lint" tag "$version"

echo "building $out with golangci-lint custom (several minutes the first time)"
GIT_CONFIG_COUNT=1 \
  GIT_CONFIG_KEY_0="url.file://$work/golangci-lint.insteadOf" \
  GIT_CONFIG_VALUE_0="https://github.com/golangci/golangci-lint.git" \
  "$gcl" custom
test -x "$out"
