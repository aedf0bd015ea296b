#!/usr/bin/env bash
# cluster.sh up|down|status: a local Kubernetes control plane for the
# end-to-end suite, from the binaries scripts/build-cluster.sh builds into
# bin/cluster/: etcd and kube-apiserver on loopback, and Flux's
# source-controller and kustomize-controller as local processes against it.
# No kubelet, no controller-manager, no scheduler: objects are stored and
# admitted, Pods never run (a Deployment never becomes ready).
#
#   up      start everything (a running, ready cluster is reused), install the
#           Flux CRDs, write .cluster/kubeconfig; prints the kubeconfig path
#   down    stop everything this script started and remove .cluster/
#   status  exit 0 when every process runs and the API server is ready
#
# Every port is loopback and picked at random among the free ones; a port
# taken between the pick and the bind makes that process fail to start, and
# it is retried on another port. State (pids, ports, logs, certificates, the
# admin token) lives in .cluster/ only.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
STATE="$ROOT/.cluster"
BIN="$ROOT/${CLUSTER_BIN:-bin/cluster}"
TOOLS="$ROOT/e2e/cluster/tools"
KUBECONFIG_FILE="$STATE/kubeconfig"
# kubeadm's default: the example add-ons (coredns's 10.96.0.10) expect it.
SERVICE_RANGE=10.96.0.0/12

log() { echo "cluster: $*" >&2; }

# free_port: a loopback TCP port nothing listens on now.
free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  log "no free loopback port found"
  return 1
}

alive() { [ -f "$STATE/$1.pid" ] && kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null; }

# start NAME COMMAND...: runs COMMAND in its own session (it outlives make),
# logging to .cluster/NAME.log.
start() {
  local name=$1
  shift
  setsid "$@" >"$STATE/$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/$name.pid"
}

stop() {
  local pid
  alive "$1" || { rm -f "$STATE/$1.pid"; return 0; }
  pid="$(cat "$STATE/$1.pid")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$STATE/$1.pid"
}

kubectl() { "$BIN/kubectl" --kubeconfig "$KUBECONFIG_FILE" "$@"; }

ready() { [ -f "$KUBECONFIG_FILE" ] && kubectl get --raw /readyz >/dev/null 2>&1; }

# wait_for NAME SECONDS CHECK...: polls CHECK until it succeeds; false when
# NAME's process exits first or after SECONDS.
wait_for() {
  local name=$1 secs=$2
  shift 2
  local i
  for ((i = 0; i < secs * 5; i++)); do
    "$@" && return 0
    alive "$name" || return 1
    if ((i > 0 && i % 75 == 0)); then
      log "still waiting for $name ($((i / 5))s so far)"
    fi
    sleep 0.2
  done
  return 1
}

bind_failed() { grep -qiE 'address already in use|bind: ' "$STATE/$1.log" 2>/dev/null; }

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# serving NAME PORT: PORT accepts connections and NAME still runs a moment
# later (a process that lost the port to another exits at once).
serving() { wait_for "$1" 30 listening "$2" && sleep 1 && alive "$1"; }

start_etcd() {
  local attempt client peer
  for attempt in 1 2 3 4 5; do
    client="$(free_port)"
    peer="$(free_port)"
    rm -rf "$STATE/etcd"
    start etcd "$BIN/etcd" --name addonpack-e2e --data-dir "$STATE/etcd" \
      --listen-client-urls "http://127.0.0.1:$client" --advertise-client-urls "http://127.0.0.1:$client" \
      --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
      --initial-cluster "addonpack-e2e=http://127.0.0.1:$peer" \
      --unsafe-no-fsync --log-level warn
    if serving etcd "$client"; then
      echo "$client" >"$STATE/etcd.port"
      return
    fi
    stop etcd
    bind_failed etcd || break
    log "etcd: port $client or $peer was taken, retrying ($attempt)"
  done
  log "etcd did not start; its log:"
  tail -n 30 "$STATE/etcd.log" >&2
  return 1
}

write_kubeconfig() {
  cat >"$KUBECONFIG_FILE" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: addonpack-e2e
  cluster:
    server: https://127.0.0.1:$1
    certificate-authority: $STATE/certs/ca.crt
users:
- name: admin
  user:
    token: $(cut -d, -f1 "$STATE/tokens.csv")
contexts:
- name: addonpack-e2e
  context: {cluster: addonpack-e2e, user: admin}
current-context: addonpack-e2e
EOF
  chmod 600 "$KUBECONFIG_FILE"
}

# certificates: a CA, the API server's serving certificate for 127.0.0.1 and
# localhost signed by it, and the service-account signing key.
certificates() {
  local d="$STATE/certs"
  mkdir -p "$d"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=addonpack-e2e-ca \
    -keyout "$d/ca.key" -out "$d/ca.crt" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver \
    -keyout "$d/apiserver.key" -out "$d/apiserver.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.96.0.1,DNS:kubernetes.default.svc\n' >"$d/san.ext"
  openssl x509 -req -in "$d/apiserver.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
    -days 30 -extfile "$d/san.ext" -out "$d/apiserver.crt" 2>/dev/null
  openssl genrsa -out "$d/sa.key" 2048 2>/dev/null
  printf '%s,admin,admin,system:masters\n' "$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')" >"$STATE/tokens.csv"
  chmod 600 "$STATE/tokens.csv" "$d"/*.key
}

start_apiserver() {
  local attempt port d="$STATE/certs"
  for attempt in 1 2 3 4 5; do
    port="$(free_port)"
    start kube-apiserver "$BIN/kube-apiserver" \
      --etcd-servers "http://127.0.0.1:$(cat "$STATE/etcd.port")" \
      --bind-address 127.0.0.1 --secure-port "$port" --advertise-address 127.0.0.1 \
      --tls-cert-file "$d/apiserver.crt" --tls-private-key-file "$d/apiserver.key" \
      --service-account-key-file "$d/sa.key" --service-account-signing-key-file "$d/sa.key" \
      --service-account-issuer https://kubernetes.default.svc \
      --token-auth-file "$STATE/tokens.csv" --authorization-mode RBAC \
      --service-cluster-ip-range "$SERVICE_RANGE"
    write_kubeconfig "$port"
    if wait_for kube-apiserver 90 ready; then
      echo "$port" >"$STATE/kube-apiserver.port"
      return
    fi
    stop kube-apiserver
    bind_failed kube-apiserver || break
    log "kube-apiserver: port $port was taken, retrying ($attempt)"
  done
  log "kube-apiserver did not become ready; its log:"
  tail -n 30 "$STATE/kube-apiserver.log" >&2
  return 1
}

# crds MODULE: the Flux CRDs shipped in the controller's module directory,
# the same release as the binary built from it.
crd_dir() {
  local dir
  dir="$(cd "$TOOLS/$1" && GOFLAGS=-mod=readonly go list -m -f '{{.Dir}}' "github.com/fluxcd/$1")"
  echo "$dir/config/crd/bases"
}

install_crds() {
  local m
  for m in source-controller kustomize-controller; do
    kubectl apply --server-side --force-conflicts --field-manager addonpack-e2e -f "$(crd_dir "$m")" >/dev/null
  done
  kubectl wait --for condition=Established --timeout 60s \
    crd/ocirepositories.source.toolkit.fluxcd.io crd/kustomizations.kustomize.toolkit.fluxcd.io >/dev/null
}

# start_controller NAME EXTRA-FLAGS...: a controller-runtime manager; its
# metrics and health probes bind to a loopback port the kernel picks.
start_controller() {
  local name=$1
  shift
  start "$name" env KUBECONFIG="$KUBECONFIG_FILE" "$BIN/$name" \
    --watch-all-namespaces --events-addr "" --log-level info \
    --metrics-addr 127.0.0.1:0 --health-addr 127.0.0.1:0 "$@"
  sleep 2
  alive "$name" || { log "$name exited; its log:"; tail -n 30 "$STATE/$name.log" >&2; return 1; }
}

start_source_controller() {
  local attempt port
  mkdir -p "$STATE/storage"
  for attempt in 1 2 3 4 5; do
    port="$(free_port)"
    if start_controller source-controller --storage-path "$STATE/storage" \
      --storage-addr "127.0.0.1:$port" --storage-adv-addr "127.0.0.1:$port" &&
      serving source-controller "$port"; then
      return
    fi
    stop source-controller
    bind_failed source-controller || break
    log "source-controller: port $port was taken, retrying ($attempt)"
  done
  log "source-controller did not start; its log:"
  tail -n 30 "$STATE/source-controller.log" >&2
  return 1
}

all_alive() {
  local n
  for n in etcd kube-apiserver source-controller kustomize-controller; do
    alive "$n" || return 1
  done
}

down() {
  local n
  for n in kustomize-controller source-controller kube-apiserver etcd; do
    stop "$n"
  done
  rm -rf "$STATE"
}

up() {
  local n
  for n in etcd kube-apiserver kubectl source-controller kustomize-controller; do
    [ -x "$BIN/$n" ] || { log "$BIN/$n missing: run scripts/build-cluster.sh (make cluster does)"; return 1; }
  done
  if all_alive && ready; then
    log "reusing the running cluster (KUBECONFIG=$KUBECONFIG_FILE)"
    echo "$KUBECONFIG_FILE"
    return
  fi
  down # whatever half of it remains
  mkdir -p "$STATE"
  chmod 700 "$STATE"
  local begin=$SECONDS
  certificates
  start_etcd
  start_apiserver
  log "kube-apiserver ready on https://127.0.0.1:$(cat "$STATE/kube-apiserver.port") ($((SECONDS - begin))s)"
  install_crds
  start_source_controller
  # render --for flux sets wait: true, and with no kubelet no health check
  # ever passes: without this documented gate a changed Kustomization (new
  # values) waits out the previous 5-minute health check before it applies.
  # --requeue-dependency: a Kustomization whose dependsOn is not Ready yet
  # looks again after 5 s instead of 30 s (the stack test waits on it).
  start_controller kustomize-controller --feature-gates CancelHealthCheckOnNewRevision=true --requeue-dependency 5s
  log "source-controller and kustomize-controller running; cluster up in $((SECONDS - begin))s"
  log "KUBECONFIG=$KUBECONFIG_FILE"
  echo "$KUBECONFIG_FILE"
}

case "${1:-}" in
up) up ;;
down) down ;;
status) all_alive && ready ;;
*)
  echo "usage: $0 up|down|status" >&2
  exit 2
  ;;
esac
