#!/usr/bin/env bash
# heartbeat.sh LABEL COMMAND [ARG...]: run COMMAND, saying LABEL first and then
# "LABEL: still running (Ns)" every 30 seconds until it ends, so a cold
# compile never leaves a terminal or a CI log silent for a minute. Exits with
# COMMAND's status; its own output passes through.
set -uo pipefail
label=$1
shift
echo "$label" >&2
start=$SECONDS
"$@" &
pid=$!
trap 'kill "$pid" 2>/dev/null' INT TERM
. "$(dirname "$0")/wait-quietly.sh"
while ! wait_quietly "$pid" "${HEARTBEAT_SECONDS:-30}"; do
  echo "$label: still running ($((SECONDS - start))s)" >&2
done
wait "$pid"
