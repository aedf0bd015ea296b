#!/usr/bin/env bash
# install-peers.sh: install the peer tools the interop tests run against,
# each built from source through the Go module proxy at a pinned version:
#   - the cosign v2 CLI   (github.com/sigstore/cosign/v2/cmd/cosign)
#   - the cosign v3 CLI   (github.com/sigstore/cosign/v3/cmd/cosign), installed
#     as cosign3 beside it: v3 writes Sigstore bundles by default and is what
#     current signers and verifiers run
#   - oras                (oras.land/oras/cmd/oras)
#   - crane               (github.com/google/go-containerregistry/cmd/crane)
# Installs into ${ADDONPACK_TOOLS:-$HOME/.cache/addonpack-tools}/bin and does
# nothing for a tool whose right version is already there. The four build
# at the same time, each reporting every 30 seconds while it compiles: from a
# cold Go cache each cosign is most of 15-20 minutes on two cores (the two
# share most dependencies; oras and crane a few minutes each); later runs
# find them and take no time. A tool of the pinned version already on the
# machine — in $ADDONPACK_PEERS_DIR or on PATH — is linked, not built. The tests
# find the tools at $ADDONPACK_TOOLS/bin/<tool> or on PATH. (skopeo comes from
# Debian: scripts/ensure-tools.sh.)
set -euo pipefail

COSIGN_VERSION="${COSIGN_VERSION:-v2.6.5}"
# v3.1.3's go.mod asks for go 1.26.0, so it builds with the project's Go.
COSIGN3_VERSION="${COSIGN3_VERSION:-v3.1.3}"
ORAS_VERSION="${ORAS_VERSION:-v1.3.6}"
CRANE_VERSION="${CRANE_VERSION:-v0.22.1}"
TOOLS="${ADDONPACK_TOOLS:-$HOME/.cache/addonpack-tools}"
BIN="$TOOLS/bin"
mkdir -p "$BIN"

# is_version FILE NAME MODULE VERSION: FILE is that tool at that version:
# a release binary says so itself; `go install` builds carry the module
# version in their build info.
is_version() {
  [ -x "$1" ] || return 1
  if [ "${2#cosign}" != "$2" ] && "$1" version 2>/dev/null | grep -q "GitVersion:.*${4#v}"; then
    return 0 # a release binary
  fi
  go version -m "$1" 2>/dev/null | grep -q "[[:space:]]mod[[:space:]]*$3[[:space:]]*$4\([[:space:]]\|$\)"
}

# have_version NAME MODULE VERSION: the tool is in $BIN at that version.
have_version() { is_version "$BIN/$1" "$@"; }

# reuse NAME MODULE VERSION: link into $BIN a tool of that version already
# on the machine — in $ADDONPACK_PEERS_DIR, or on PATH (under NAME, or
# cosign for cosign3) — instead of building it again.
reuse() {
  local name=$1 dir candidate
  local names=("$name")
  [ "$name" = cosign3 ] && names+=(cosign)
  local IFS=:
  for dir in ${ADDONPACK_PEERS_DIR:-} $PATH; do
    for candidate in "${names[@]}"; do
      [ -n "$dir" ] && [ "$dir/$candidate" != "$BIN/$name" ] || continue
      if is_version "$dir/$candidate" "$@"; then
        ln -sf "$dir/$candidate" "$BIN/$name"
        echo "install-peers: $name $3 found at $dir/$candidate: linked, not built" >&2
        return 0
      fi
    done
  done
  return 1
}

# install NAME MODULE PACKAGE VERSION: go install names the binary after the
# package's directory (cosign for both majors), so it is built into a
# directory of its own and moved to NAME.
install() {
  local name=$1 module=$2 pkg=$3 version=$4
  local gobin="$TOOLS/build-$name"
  if have_version "$name" "$module" "$version"; then
    echo "install-peers: $name $version present at $BIN/$name" >&2
    return
  fi
  if reuse "$name" "$module" "$version"; then
    return
  fi
  echo "install-peers: building $name $version ($pkg) into $BIN" >&2
  local start=$SECONDS
  # Outside the module so the project's go.mod is neither read nor changed.
  (cd "$TOOLS" && rm -rf "$gobin" && GOBIN="$gobin" GOFLAGS=-mod=mod GO111MODULE=on go install "$pkg@$version" &&
    mv -f "$gobin/${pkg##*/}" "$BIN/$name" && rm -rf "$gobin") &
  local pid=$!
  while ! wait_quietly "$pid" 30; do
    echo "install-peers: still building $name $version ($((SECONDS - start))s so far)" >&2
  done
  wait "$pid" || { echo "install-peers: building $name $version failed" >&2; exit 1; }
  have_version "$name" "$module" "$version" || { echo "install-peers: $name $version did not install" >&2; exit 1; }
  echo "install-peers: $name $version installed at $BIN/$name in $((SECONDS - start))s" >&2
}

# wait_quietly: scripts/wait-quietly.sh
. "$(dirname "$0")/wait-quietly.sh"

# All four at once: the Go toolchain shares its module and build caches
# safely between concurrent builds.
# ADDONPACK_PEERS narrows the tools to install (default: all four).
wanted() { [ -z "${ADDONPACK_PEERS:-}" ] || [[ " $ADDONPACK_PEERS " == *" $1 "* ]]; }
pids=()
wanted cosign && { install cosign github.com/sigstore/cosign/v2 github.com/sigstore/cosign/v2/cmd/cosign "$COSIGN_VERSION" & pids+=($!); }
wanted cosign3 && { install cosign3 github.com/sigstore/cosign/v3 github.com/sigstore/cosign/v3/cmd/cosign "$COSIGN3_VERSION" & pids+=($!); }
wanted oras && { install oras oras.land/oras oras.land/oras/cmd/oras "$ORAS_VERSION" & pids+=($!); }
wanted crane && { install crane github.com/google/go-containerregistry github.com/google/go-containerregistry/cmd/crane "$CRANE_VERSION" & pids+=($!); }
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
