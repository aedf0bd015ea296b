#!/usr/bin/env bash
# bench/install-peers.sh: install the peer tools the benchmark harness compares
# addonpack with, into ${ADDONPACK_TOOLS:-$HOME/.cache/addonpack-tools}/bin:
#   - oras v1.3.6 (go install through the Go module proxy),
#   - cosign v2.6.5 (delegated to scripts/install-peers.sh, which the tests use),
#   - kustomize v5.8.2 (go install), for the validated peer pipeline.
# flux is used when it is already on PATH; it is not installed.
# Nothing is rebuilt when the right version is present.
set -euo pipefail

ORAS_VERSION="${ORAS_VERSION:-v1.3.6}"
TOOLS="${ADDONPACK_TOOLS:-$HOME/.cache/addonpack-tools}"
BIN="$TOOLS/bin"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$BIN"

# go_tool NAME MODULE PACKAGE VERSION: installs PACKAGE@VERSION into $BIN
# unless $BIN/NAME was built from MODULE at VERSION. Outside the project's
# module, so its go.mod is neither read nor changed; heartbeat.sh says every
# 30 s that the (silent) compile goes on.
go_tool() {
  local name=$1 module=$2 pkg=$3 version=$4
  if go version -m "$BIN/$name" 2>/dev/null | grep -q "${module}[[:space:]]*${version}"; then
    echo "bench/install-peers: $name ${version} present at $BIN/$name" >&2
    return
  fi
  (cd "$TOOLS" && GOBIN="$BIN" GOFLAGS=-mod=mod GO111MODULE=on \
    "$HERE/../scripts/heartbeat.sh" "bench/install-peers: building $name ${version} into $BIN" go install "${pkg}@${version}")
  "$BIN/$name" version >/dev/null
}

go_tool oras oras.land/oras oras.land/oras/cmd/oras "$ORAS_VERSION"

"$HERE/../scripts/install-peers.sh"

# The kustomize CLI of the kustomize API addonpack links (v5.8.2: api v0.21.2),
# for the validated peer pipeline (kustomize build before tar, oras, cosign).
go_tool kustomize sigs.k8s.io/kustomize/kustomize/v5 sigs.k8s.io/kustomize/kustomize/v5 "${KUSTOMIZE_VERSION:-v5.8.2}"

if command -v flux >/dev/null 2>&1; then
  echo "bench/install-peers: flux found at $(command -v flux); its pipeline is measured too" >&2
else
  echo "bench/install-peers: flux not on PATH; the peer pipelines are tar + oras + cosign (and kustomize build first)" >&2
fi
