#!/usr/bin/env bash
# ensure-tools.sh: install what the tests need when it is missing.
#   - CNCF distribution 2.8 (Debian's docker-registry) for the real-registry tests.
#   - skopeo (Debian) for the client interop tests (internal/interop).
# Safe to run repeatedly; it changes nothing when everything is present.
set -euo pipefail

need_apt=()
[ -x "${ADDONPACK_DOCKER_REGISTRY:-/usr/bin/docker-registry}" ] || need_apt+=(docker-registry)
command -v git >/dev/null || need_apt+=(git)
command -v skopeo >/dev/null || need_apt+=(skopeo)

if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "ensure-tools: missing ${need_apt[*]}: install them (Debian: apt-get install -y ${need_apt[*]})" >&2
    exit 1
  fi
  echo "ensure-tools: installing ${need_apt[*]} with apt-get (about a minute)" >&2
  export DEBIAN_FRONTEND=noninteractive
  echo "ensure-tools: apt-get update" >&2
  apt-get update -qq >/dev/null
  # One line per package as apt unpacks and sets it up.
  apt-get install -y -q "${need_apt[@]}" | grep -E '^(Unpacking|Setting up) ' >&2 || true
  for p in "${need_apt[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || { echo "ensure-tools: $p did not install" >&2; exit 1; }
  done
  echo "ensure-tools: installed ${need_apt[*]}" >&2
fi
