#!/usr/bin/env bash
# Runs the official OCI distribution-spec conformance suite against
# `ADDONPACK_BINARY registry serve`, once with memory storage and once with
# filesystem storage, with every API and data set enabled.
#
# Usage: scripts/conformance.sh [ADDONPACK_BINARY]
#
# Without ADDONPACK_BINARY it builds testregistry/internal/servecmd, a stand-in
# that accepts the same arguments. The server must print
# "listening on http://HOST:PORT" as its first stderr line.
#
# Environment:
#   ADDONPACK_TOOLS         cache for the suite binary (~/.cache/addonpack-tools)
#   CONFORMANCE_SPARSE=1    also run the optional "sparse" data set; the server
#                           then gets --allow-sparse (the registry refuses
#                           manifests with missing references by default)
#   CONFORMANCE_KEEP=1      keep the work directory (results, server logs)
#
# Exit status: 0 when both runs have 0 failed and 0 errored tests.
set -euo pipefail

SUITE_MODULE=github.com/opencontainers/distribution-spec/conformance
SUITE_VERSION=v0.0.0-20260831232431-97274622c111
TOOLS=${ADDONPACK_TOOLS:-$HOME/.cache/addonpack-tools}
SUITE_BIN=$TOOLS/oci-conformance-$SUITE_VERSION
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/addonpack-conformance.XXXXXX")
SERVER_PID=
cleanup() {
	if [[ -n $SERVER_PID ]]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	if [[ ${CONFORMANCE_KEEP:-} == 1 ]]; then
		echo "work directory kept: $WORK" >&2
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT

# build_suite installs the suite's main package with `go install pkg@version`,
# which uses its own module graph and never touches the repo's go.mod.
build_suite() {
	if [[ -x $SUITE_BIN ]]; then
		return
	fi
	echo "building OCI conformance suite $SUITE_VERSION" >&2
	mkdir -p "$TOOLS"
	local gobin=$WORK/gobin
	(cd "$WORK" && GOBIN=$gobin GOFLAGS= GOTOOLCHAIN=local go install "$SUITE_MODULE@$SUITE_VERSION")
	mv "$gobin/conformance" "$SUITE_BIN.tmp.$$"
	mv "$SUITE_BIN.tmp.$$" "$SUITE_BIN"
}

# server_binary prints the absolute path of the binary run as "BINARY registry serve ...".
server_binary() {
	if [[ $# -ge 1 && -n $1 ]]; then
		[[ -x $1 ]] || { echo "not executable: $1" >&2; exit 2; }
		(cd "$(dirname "$1")" && echo "$(pwd)/$(basename "$1")")
		return
	fi
	echo "building testregistry/internal/servecmd" >&2
	(cd "$REPO_ROOT" && GOFLAGS= go build -o "$WORK/servecmd" ./testregistry/internal/servecmd)
	echo "$WORK/servecmd"
}

# start_server BINARY LOGFILE [ARGS...] starts the registry and sets ADDR.
start_server() {
	local bin=$1 log=$2
	shift 2
	"$bin" registry serve --addr 127.0.0.1:0 "$@" 2>"$log" &
	SERVER_PID=$!
	local line=
	for _ in $(seq 1 300); do
		line=$(head -n 1 "$log" 2>/dev/null || true)
		[[ -n $line ]] && break
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	if [[ $line =~ ^listening\ on\ https?://([^[:space:]]+) ]]; then
		ADDR=${BASH_REMATCH[1]}
		return
	fi
	echo "server did not report its address; stderr:" >&2
	cat "$log" >&2
	exit 1
}

stop_server() {
	kill "$SERVER_PID" 2>/dev/null || true
	wait "$SERVER_PID" 2>/dev/null || true
	SERVER_PID=
}

# summarize JUNIT prints passed/failed/skipped per top-level section and
# sets FAILED to the number of failed or errored leaf tests.
summarize() {
	awk '
	/<testcase / {
		name = $0; sub(/.*<testcase name="/, "", name); sub(/".*/, "", name)
		status = $0; sub(/.* status="/, "", status); sub(/".*/, "", status)
		n = split(name, parts, "/")
		section = (n >= 2) ? parts[2] : name
		if (!(section in seen)) { seen[section] = 1; order[++count] = section }
		total[section, status]++
		all[status]++
	}
	END {
		printf "  %-40s %7s %7s %7s\n", "section", "passed", "failed", "skipped"
		for (i = 1; i <= count; i++) {
			s = order[i]
			printf "  %-40s %7d %7d %7d\n", s, total[s, "passed"], total[s, "failure"] + total[s, "error"], total[s, "skipped"]
		}
		printf "  %-40s %7d %7d %7d\n", "TOTAL", all["passed"], all["failure"] + all["error"], all["skipped"]
		print all["failure"] + all["error"] > "/dev/stderr"
	}' "$1" 2>"$WORK/failed-count"
	FAILED=$(cat "$WORK/failed-count")
}

# run_suite LABEL [SERVER ARGS...]
run_suite() {
	local label=$1
	shift
	local dir=$WORK/$label
	mkdir -p "$dir/run"
	start_server "$SERVER_BIN" "$dir/server.log" "$@"
	local sparse=false
	if [[ ${CONFORMANCE_SPARSE:-} == 1 ]]; then
		sparse=true
	fi
	local rc=0
	(
		cd "$dir/run" # clean directory: no oci-conformance.yaml is picked up
		for v in $(compgen -e | grep '^OCI_' || true); do unset "$v"; done
		export OCI_REGISTRY=$ADDR OCI_TLS=disabled OCI_VERSION=1.1 OCI_LOG=warn
		export OCI_REPO1=conformance/repo1 OCI_REPO2=conformance/repo2
		export OCI_RESULTS_DIR=$dir/results
		export OCI_API_PING=true OCI_API_PULL=true OCI_API_PUSH=true OCI_API_REFERRER=true
		export OCI_API_BLOBS_ATOMIC=true OCI_API_BLOBS_DELETE=true OCI_API_BLOBS_DIGEST_HEADER=true
		export OCI_API_BLOBS_MOUNT_ANONYMOUS=true OCI_API_BLOBS_UPLOAD_CANCEL=true
		export OCI_API_MANIFESTS_ATOMIC=true OCI_API_MANIFESTS_DELETE=true
		export OCI_API_MANIFESTS_DIGEST_HEADER=true OCI_API_MANIFESTS_TAG_PARAM=true
		export OCI_API_TAGS_ATOMIC=true OCI_API_TAGS_DELETE=true OCI_API_TAGS_LIST=true
		export OCI_DATA_IMAGE=true OCI_DATA_INDEX=true OCI_DATA_INDEX_LIST=true
		export OCI_DATA_SPARSE=$sparse OCI_DATA_ARTIFACT=true OCI_DATA_SUBJECT=true
		export OCI_DATA_SUBJECT_MISSING=true OCI_DATA_ARTIFACT_LIST=true OCI_DATA_SUBJECT_LIST=true
		export OCI_DATA_DATA_FIELD=true OCI_DATA_NONDISTRIBUTABLE=true OCI_DATA_CUSTOM_FIELDS=true
		export OCI_DATA_NO_LAYERS=true OCI_DATA_EMPTY_BLOB=true OCI_DATA_SHA512=true
		"$SUITE_BIN" >"$dir/suite.out" 2>"$dir/suite.err"
	) || rc=$?
	stop_server
	echo
	echo "== conformance: $label storage (suite exit $rc)"
	sed -n '/^API conformance:/,/^$/p' "$dir/suite.out"
	if [[ ! -s $dir/results/junit.xml ]]; then
		echo "  no junit.xml produced; suite stderr:" >&2
		cat "$dir/suite.err" >&2
		FAILURES=$((FAILURES + 1))
		return
	fi
	summarize "$dir/results/junit.xml"
	if ((FAILED > 0 || rc != 0)); then
		echo "  FAILED leaf tests:"
		grep -o '<testcase name="[^"]*"[^>]*status="\(failure\|error\)"' "$dir/results/junit.xml" |
			sed 's/<testcase name="\([^"]*\)".*/    \1/' | sort | uniq -c
		FAILURES=$((FAILURES + FAILED + (rc != 0)))
		CONFORMANCE_KEEP=1 # keep results and logs for inspection
	fi
}

build_suite
SERVER_BIN=$(server_binary "${1:-}")
sparse_args=()
if [[ ${CONFORMANCE_SPARSE:-} == 1 ]]; then
	sparse_args=(--allow-sparse)
fi
FAILURES=0
run_suite memory "${sparse_args[@]}"
mkdir -p "$WORK/fsroot"
run_suite filesystem --root "$WORK/fsroot" "${sparse_args[@]}"
echo
if ((FAILURES > 0)); then
	echo "conformance: FAILED"
	exit 1
fi
echo "conformance: all tests passed with memory and filesystem storage"
