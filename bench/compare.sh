#!/bin/sh
# bench/compare.sh REV: build addonpack at REV (in a temporary git worktree
# outside the repository) and from the work tree as it is, then run
# bench/cmd/benchcompare over both, interleaved. Knobs: BENCH_REPS (default
# 5), BENCH_LARGE=0 to leave out the large add-on's build, BENCH_REGISTRY=HOST
# to run against a registry already running there (e.g. distribution).
set -eu
rev=${1:?usage: bench/compare.sh REV}
top=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/addonpack-bench-compare.XXXXXX")
cleanup() {
	git -C "$top" worktree remove --force "$tmp/old" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
git -C "$top" worktree add --detach --quiet "$tmp/old" "$rev"
echo "bench-compare: building $rev ($(git -C "$top" rev-parse --short "$rev")) and the work tree" >&2
(cd "$tmp/old" && go build -o "$tmp/addonpack-old" ./cmd/addonpack)
(cd "$top" && go build -o "$tmp/addonpack-new" ./cmd/addonpack)
large=true
[ "${BENCH_LARGE:-1}" = 0 ] && large=false
cd "$top" && go run ./bench/cmd/benchcompare -old "$tmp/addonpack-old" -new "$tmp/addonpack-new" \
	-reps "${BENCH_REPS:-5}" -large="$large" -work "$tmp/work" ${BENCH_REGISTRY:+-registry "$BENCH_REGISTRY"}
