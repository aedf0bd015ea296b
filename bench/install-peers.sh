#!/usr/bin/env bash
# bench/install-peers.sh: install the peer tools the benchmark harness compares
# addonpack with, into ${ADDONPACK_TOOLS:-$HOME/.cache/addonpack-tools}/bin:
#   - oras v1.3.6 (go install through the Go module proxy),
#   - cosign v2.6.5 (delegated to scripts/install-peers.sh, which the tests use).
# flux is used when it is already on PATH; it is not installed.
# Nothing is rebuilt when the right version is present.
set -euo pipefail

ORAS_VERSION="${ORAS_VERSION:-v1.3.6}"
TOOLS="${ADDONPACK_TOOLS:-$HOME/.cache/addonpack-tools}"
BIN="$TOOLS/bin"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$BIN"

if go version -m "$BIN/oras" 2>/dev/null | grep -q "oras.land/oras[[:space:]]*${ORAS_VERSION}"; then
  echo "bench/install-peers: oras ${ORAS_VERSION} present at $BIN/oras" >&2
else
  echo "bench/install-peers: building oras ${ORAS_VERSION} into $BIN" >&2
  # Outside the module so the project's go.mod is neither read nor changed.
  (cd "$TOOLS" && GOBIN="$BIN" GOFLAGS=-mod=mod GO111MODULE=on go install "oras.land/oras/cmd/oras@${ORAS_VERSION}")
  "$BIN/oras" version >/dev/null
fi

"$HERE/../scripts/install-peers.sh"

if command -v flux >/dev/null 2>&1; then
  echo "bench/install-peers: flux found at $(command -v flux); its pipeline is measured too" >&2
else
  echo "bench/install-peers: flux not on PATH; only the oras + cosign pipeline is measured" >&2
fi
