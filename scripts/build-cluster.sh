#!/usr/bin/env bash
# build-cluster.sh: build the end-to-end cluster's binaries into bin/cluster/,
# from the pinned build modules under e2e/cluster/tools/ (one module per graph,
# so kube-apiserver's client-go v0.34 never meets the Flux controllers' v0.36):
#   k8s/                  kube-apiserver, kubectl (k8s.io/kubernetes), etcd
#   source-controller/    Flux source-controller
#   kustomize-controller/ Flux kustomize-controller
# and fetches (argocd-crd) Argo CD's Application CRD, which the suite uses for
# a server-side dry-run (Argo CD's controllers are not run).
# Each module's binaries are reused when present and its stamp file
# (bin/cluster/.stamp-MODULE) records the same pinned versions: a hash of the
# module's go.mod and go.sum, the Go version and the link flags. Modules come
# through the Go module proxy only (never `direct` from a VCS). Cold, the three
# builds take about 15 minutes on two cores; they run at once, niced, and each
# reports every 30 seconds what it is compiling and for how long.
set -euo pipefail
cd "$(dirname "$0")/.."

K8S_VERSION=v1.34.4 # keep in step with e2e/cluster/tools/k8s/go.mod
# Argo CD's release whose manifests/crds/application-crd.yaml the suite
# installs, and its module zip's h1: hash (go.sum's form). v3.5.x is the
# newest line whose go.mod fits Go 1.26.8 (v3.6 needs 1.27); only the module
# zip is fetched, nothing is built from it.
ARGOCD_VERSION=v3.5.7
ARGOCD_SUM=h1:Xm1BF+I5OgDKUG3SDK49vn2/Y5AMyaNVko+/JT08gj0=
OUT="${CLUSTER_BIN:-bin/cluster}"
TOOLS=e2e/cluster/tools
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

# Only the module proxy: drop a trailing `direct` fallback, if any.
proxy="$(go env GOPROXY)"
proxy="${proxy%,direct}"
proxy="${proxy%|direct}"
# go.sum is committed: nothing resolves anew, whatever GOFLAGS says.
GOFLAGS="$(echo "${GOFLAGS:-}" | sed 's/-mod=[a-z]*//g') -mod=readonly"
export GOPROXY="$proxy" GOFLAGS

minor="${K8S_VERSION#v1.}"
minor="${minor%%.*}"
K8S_LDFLAGS="-X k8s.io/component-base/version.gitVersion=$K8S_VERSION"
K8S_LDFLAGS+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
K8S_LDFLAGS+=" -X k8s.io/component-base/version.gitTreeState=clean"

# stamp MODULE LDFLAGS: what the module's binaries were built from.
stamp() {
  {
    go version
    echo "ldflags: $2"
    sha256sum "$TOOLS/$1/go.mod" "$TOOLS/$1/go.sum" | cut -d' ' -f1
  } | sha256sum | cut -d' ' -f1
}

# wait_quietly: scripts/wait-quietly.sh
. scripts/wait-quietly.sh # the script runs from the repository root

# compiling PID: the packages the go command PID is compiling right now (its
# compile children's -p argument), so a long wait says where it is.
compiling() {
  local pkgs
  pkgs="$(ps -o args= --ppid "$1" 2>/dev/null | sed -n 's/.* -p \([^ ]*\) .*/\1/p' | head -3 | paste -sd, -)"
  if ps -o args= --ppid "$1" 2>/dev/null | grep -q '/link '; then
    pkgs="${pkgs:+$pkgs, }linking"
  fi
  echo "${pkgs:-resolving or downloading modules}"
}

# build MODULE LDFLAGS BINARY=PACKAGE...
build() {
  local module=$1 ldflags=$2
  shift 2
  local want names=() pkgs=() spec missing=0
  want="$(stamp "$module" "$ldflags")"
  for spec in "$@"; do
    names+=("${spec%%=*}")
    pkgs+=("${spec#*=}")
    [ -x "$OUT/${spec%%=*}" ] || missing=1
  done
  if [ "$missing" = 0 ] && [ "$(cat "$OUT/.stamp-$module" 2>/dev/null)" = "$want" ]; then
    echo "build-cluster: ${names[*]} present in $OUT (pinned versions match)" >&2
    return
  fi
  echo "build-cluster: building ${names[*]} from $TOOLS/$module into $OUT" >&2
  rm -f "$OUT/.stamp-$module"
  local start=$SECONDS dir
  dir="$(mktemp -d "$OUT/.build-$module.XXXXXX")"
  (cd "$TOOLS/$module" && exec nice -n 19 go build -ldflags "$ldflags" -o "$dir/" "${pkgs[@]}") &
  local pid=$!
  while ! wait_quietly "$pid" 30; do
    echo "build-cluster: still building ${names[*]} ($((SECONDS - start))s so far; now: $(compiling "$pid"))" >&2
  done
  if ! wait "$pid"; then
    rm -rf "$dir"
    echo "build-cluster: building ${names[*]} failed after $((SECONDS - start))s" >&2
    return 1
  fi
  local i
  for i in "${!names[@]}"; do
    mv "$dir/$(basename "${pkgs[$i]}")" "$OUT/${names[$i]}"
  done
  rm -rf "$dir"
  echo "$want" >"$OUT/.stamp-$module"
  echo "build-cluster: built ${names[*]} in $((SECONDS - start))s" >&2
}

# argocd_crd: Argo CD's Application CRD into $OUT/argocd/, from the module
# zip of ARGOCD_VERSION through the module proxy (and the checksum database,
# as for any module); refused unless the zip's hash is ARGOCD_SUM.
argocd_crd() {
  local want="$ARGOCD_VERSION $ARGOCD_SUM" json dir sum
  if [ -f "$OUT/argocd/application-crd.yaml" ] && [ "$(cat "$OUT/.stamp-argocd-crd" 2>/dev/null)" = "$want" ]; then
    echo "build-cluster: Argo CD $ARGOCD_VERSION Application CRD present in $OUT/argocd" >&2
    return
  fi
  rm -f "$OUT/.stamp-argocd-crd"
  # Outside any module: a bare download of one module version.
  json="$(cd / && GOFLAGS= go mod download -json "github.com/argoproj/argo-cd/v3@$ARGOCD_VERSION")"
  dir="$(jq -r '.Dir // empty' <<<"$json")"
  sum="$(jq -r '.Sum // empty' <<<"$json")"
  if [ -z "$dir" ] || [ "$sum" != "$ARGOCD_SUM" ]; then
    echo "build-cluster: github.com/argoproj/argo-cd/v3@$ARGOCD_VERSION: got sum '$sum' (want $ARGOCD_SUM): $(jq -r '.Error // empty' <<<"$json")" >&2
    return 1
  fi
  mkdir -p "$OUT/argocd"
  install -m 644 "$dir/manifests/crds/application-crd.yaml" "$OUT/argocd/application-crd.yaml.tmp"
  mv "$OUT/argocd/application-crd.yaml.tmp" "$OUT/argocd/application-crd.yaml"
  echo "$want" >"$OUT/.stamp-argocd-crd"
  echo "build-cluster: Argo CD $ARGOCD_VERSION Application CRD in $OUT/argocd" >&2
}

# Arguments name the modules to build (default: all three and argocd-crd).
selected=("$@")
[ ${#selected[@]} -gt 0 ] || selected=(k8s source-controller kustomize-controller argocd-crd)
# One build at a time (.ci/run starts one early, in the background, and
# make e2e runs this again): a second run waits, then finds the binaries.
exec 9>"$OUT/.lock"
waited=$SECONDS
until flock -w 30 9; do
  echo "build-cluster: waiting for another build-cluster.sh to finish ($((SECONDS - waited))s so far)" >&2
done

begin=$SECONDS
pids=()
for module in "${selected[@]}"; do
  case "$module" in
  k8s)
    build k8s "$K8S_LDFLAGS" \
      kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
      kubectl=k8s.io/kubernetes/cmd/kubectl \
      etcd=./etcd &
    ;;
  source-controller | kustomize-controller)
    build "$module" "" "$module=github.com/fluxcd/$module" &
    ;;
  argocd-crd)
    argocd_crd &
    ;;
  *)
    echo "build-cluster: unknown module $module (k8s, source-controller, kustomize-controller, argocd-crd)" >&2
    exit 2
    ;;
  esac
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
[ "$status" = 0 ] && echo "build-cluster: cluster binaries ready in $OUT ($((SECONDS - begin))s)" >&2
exit $status
