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

export COSIGN_PASSWORD=demo-only-password
step addonpack keygen --output-key-prefix "$work/release"
"$ADDONPACK" keygen --output-key-prefix "$work/release"

step addonpack push "$work/hello" "$addr/addons/hello:0.1.0" --key "$work/release.key"
"$ADDONPACK" push "$work/hello" "$addr/addons/hello:0.1.0" --key "$work/release.key"

step addonpack inspect "$addr/addons/hello:0.1.0"
"$ADDONPACK" inspect "$addr/addons/hello:0.1.0"

step addonpack verify "$addr/addons/hello:0.1.0" --key "$work/release.pub" --require-provenance
"$ADDONPACK" verify "$addr/addons/hello:0.1.0" --key "$work/release.pub" --require-provenance

step addonpack pull "$addr/addons/hello:0.1.0" -o "$work/pulled" --key "$work/release.pub"
"$ADDONPACK" --cache-dir "$work/cache" pull "$addr/addons/hello:0.1.0" -o "$work/pulled" --key "$work/release.pub"
(cd "$work/pulled" && find . -type f | sort)

step "diff -r source pulled"
diff -r "$work/hello" "$work/pulled" && echo "identical: the pulled tree is the source tree"

step "addonpack render with a config of your own"
printf 'apiVersion: hello.addons.example.com/v1alpha1\nkind: HelloConfig\nspec:\n  replicas: 3\n  message: hi from the demo\n' > "$work/values.yaml"
cat "$work/values.yaml"
"$ADDONPACK" --cache-dir "$work/cache" render "$addr/addons/hello:0.1.0" --key "$work/release.pub" --values "$work/values.yaml" | grep -E '^kind:|replicas:|hi from the demo'

step "addonpack keygen another key; pull with it must fail verification (exit 9) and write nothing"
"$ADDONPACK" keygen --output-key-prefix "$work/stranger" 2>/dev/null
set +e
"$ADDONPACK" --no-cache pull "$addr/addons/hello:0.1.0" -o "$work/untrusted" --key "$work/stranger.pub"
code=$?
set -e
echo "exit code $code (9 = verification failed); $work/untrusted exists: $([ -e "$work/untrusted" ] && echo yes || echo no)"
[ "$code" -eq 9 ] && [ ! -e "$work/untrusted" ]

step "addonpack pull $addr/addons/hello:9.9.9 (a tag that does not exist)"
set +e
"$ADDONPACK" pull "$addr/addons/hello:9.9.9" -o "$work/missing" --key "$work/release.pub"
code=$?
set -e
echo "exit code $code (4 = not found); $work/missing exists: $([ -e "$work/missing" ] && echo yes || echo no)"
[ "$code" -eq 4 ] && [ ! -e "$work/missing" ]

printf '\ndemo finished: build, signed push, verify, pull and render all worked against the embedded registry\n'
