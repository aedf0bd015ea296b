#!/usr/bin/env bash
# demo.sh: the main job end to end on the embedded registry, with nothing else
# installed: scaffold an add-on, build it reproducibly, push it, inspect it,
# pull it back and compare.
set -euo pipefail
ADDONPACK=${1:-bin/addonpack}
work=$(mktemp -d)
registry_pid=
cleanup() {
  [ -n "$registry_pid" ] && kill "$registry_pid" 2>/dev/null && wait "$registry_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

# Start the embedded registry on a free loopback port and read the address it reports.
"$ADDONPACK" registry serve --addr 127.0.0.1:0 2>"$work/registry.log" &
registry_pid=$!
for _ in $(seq 1 100); do
  addr=$(sed -n 's|^listening on http://||p' "$work/registry.log")
  [ -n "$addr" ] && break
  sleep 0.1
done
[ -n "$addr" ] || { echo "registry did not start:"; cat "$work/registry.log"; exit 1; }
echo "embedded registry listening on $addr"

step addonpack init "$work/hello"
"$ADDONPACK" init "$work/hello"

step addonpack build "$work/hello"
first=$("$ADDONPACK" build "$work/hello")
echo "$first"
step "touch every file, build again: the digest must not change"
find "$work/hello" -type f -exec touch -d '2001-01-01' {} +
second=$("$ADDONPACK" build "$work/hello")
echo "$second"
[ "$first" = "$second" ] || { echo "digest changed: $first vs $second"; exit 1; }

step addonpack push "$work/hello" "$addr/addons/hello:0.1.0"
"$ADDONPACK" push "$work/hello" "$addr/addons/hello:0.1.0"

step addonpack inspect "$addr/addons/hello:0.1.0"
"$ADDONPACK" inspect "$addr/addons/hello:0.1.0"

step addonpack pull "$addr/addons/hello:0.1.0" -o "$work/pulled"
"$ADDONPACK" pull "$addr/addons/hello:0.1.0" -o "$work/pulled"
(cd "$work/pulled" && find . -type f | sort)

step "diff -r source pulled"
diff -r "$work/hello" "$work/pulled" && echo "identical: the pulled tree is the source tree"

step "addonpack pull $addr/addons/hello:9.9.9 (a tag that does not exist)"
set +e
"$ADDONPACK" pull "$addr/addons/hello:9.9.9" -o "$work/missing"
code=$?
set -e
echo "exit code $code (4 = not found); $work/missing exists: $([ -e "$work/missing" ] && echo yes || echo no)"
[ "$code" -eq 4 ] && [ ! -e "$work/missing" ]

printf '\ndemo finished: build, push, inspect and pull all worked against the embedded registry\n'
