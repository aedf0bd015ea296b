# wait-quietly.sh, sourced by the scripts that wait on a long child (a
# compile, a build of a peer CLI) and must say something at least every 30
# seconds while it runs.

# wait_quietly PID SECONDS: true once PID has exited, false after SECONDS.
wait_quietly() {
  local i
  for ((i = 0; i < $2; i++)); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 1
  done
  ! kill -0 "$1" 2>/dev/null
}
