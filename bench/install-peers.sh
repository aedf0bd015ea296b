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

if go version -m "$BIN/oras" 2>/dev/null | grep -q "oras.land/oras[[:space:]]*${ORAS_VERSION}"; then
  echo "bench/install-peers: oras ${ORAS_VERSION} present at $BIN/oras" >&2
else
  echo "bench/install-peers: building oras ${ORAS_VERSION} into $BIN" >&2
  # Outside the module so the project's go.mod is neither read nor changed.
  (cd "$TOOLS" && GOBIN="$BIN" GOFLAGS=-mod=mod GO111MODULE=on go install "oras.land/oras/cmd/oras@${ORAS_VERSION}")
  "$BIN/oras" version >/dev/null
fi

"$HERE/../scripts/install-peers.sh"

# The kustomize CLI of the kustomize API addonpack links (v5.8.2: api v0.21.2),
# for the validated peer pipeline (kustomize build before tar, oras, cosign).
KUSTOMIZE_VERSION="${KUSTOMIZE_VERSION:-v5.8.2}"
if go version -m "$BIN/kustomize" 2>/dev/null | grep -q "sigs.k8s.io/kustomize/kustomize/v5[[:space:]]*${KUSTOMIZE_VERSION}"; then
  echo "bench/install-peers: kustomize ${KUSTOMIZE_VERSION} present at $BIN/kustomize" >&2
else
  echo "bench/install-peers: building kustomize ${KUSTOMIZE_VERSION} into $BIN (a few minutes cold)" >&2
  (cd "$TOOLS" && GOBIN="$BIN" GOFLAGS=-mod=mod GO111MODULE=on go install "sigs.k8s.io/kustomize/kustomize/v5@${KUSTOMIZE_VERSION}")
  "$BIN/kustomize" version >/dev/null
fi

if command -v flux >/dev/null 2>&1; then
  echo "bench/install-peers: flux found at $(command -v flux); its pipeline is measured too" >&2
else
  echo "bench/install-peers: flux not on PATH; the peer pipelines are tar + oras + cosign (and kustomize build first)" >&2
fi
