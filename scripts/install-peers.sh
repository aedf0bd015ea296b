#!/usr/bin/env bash
# install-peers.sh: install the peer tools the interop tests run against.
#   - the cosign v2 CLI (built from source through the Go module proxy).
# Installs into ${ADDONPACK_TOOLS:-$HOME/.cache/addonpack-tools}/bin and does
# nothing when the right version is already there. Building cosign takes a few
# minutes on two cores; the tests find it at $ADDONPACK_TOOLS/bin/cosign or on PATH.
set -euo pipefail

COSIGN_VERSION="${COSIGN_VERSION:-v2.6.5}"
TOOLS="${ADDONPACK_TOOLS:-$HOME/.cache/addonpack-tools}"
BIN="$TOOLS/bin"
mkdir -p "$BIN"

have_version() {
  [ -x "$BIN/cosign" ] || return 1
  "$BIN/cosign" version 2>/dev/null | grep -q "GitVersion:.*${COSIGN_VERSION#v}" && return 0
  # `go install` builds carry the module version in the build info.
  go version -m "$BIN/cosign" 2>/dev/null | grep -q "github.com/sigstore/cosign/v2[[:space:]]*${COSIGN_VERSION}"
}

if have_version; then
  echo "install-peers: cosign ${COSIGN_VERSION} present at $BIN/cosign" >&2
  exit 0
fi

echo "install-peers: building cosign ${COSIGN_VERSION} into $BIN (takes a few minutes)" >&2
# Outside the module so the project's go.mod is neither read nor changed.
cd "$TOOLS"
GOBIN="$BIN" GOFLAGS=-mod=mod GO111MODULE=on go install "github.com/sigstore/cosign/v2/cmd/cosign@${COSIGN_VERSION}"
"$BIN/cosign" version >/dev/null
echo "install-peers: cosign ${COSIGN_VERSION} installed at $BIN/cosign" >&2
