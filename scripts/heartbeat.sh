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
while kill -0 "$pid" 2>/dev/null; do
  for ((i = 0; i < ${HEARTBEAT_SECONDS:-30}; i++)); do
    kill -0 "$pid" 2>/dev/null || break 2
    sleep 1
  done
  echo "$label: still running ($((SECONDS - start))s)" >&2
done
wait "$pid"
