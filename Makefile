# addonpack — see README.md.
GO        ?= go
BIN       := bin/addonpack
# The version provenance records (runDetails.builder.version): stamped at link time.
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo '(devel)')
LDFLAGS   := -X github.com/addonpack/addonpack/cmd/addonpack/commands.version=$(VERSION)
PKGS      := ./...
MODULE    := github.com/addonpack/addonpack
# Import grouping (make lint): standard library, others, then this module's own.
GOIMPORTS_VERSION := v0.52.0
GOIMPORTS := bin/tools/goimports-$(GOIMPORTS_VERSION)
# Fuzz budgets are execution counts, not durations: a duration -fuzztime races
# Go 1.26's fuzz coordinator and fails spuriously with "context deadline
# exceeded" under load (golang/go#75804, fixed in Go 1.27).
FUZZTIME  ?= 3000x
# Fuzz targets: package:Target. `make test` runs each for $(FUZZTIME) inputs; `make fuzz` for FUZZ_LONG.
FUZZ_LONG ?= 300000x
FUZZ_TARGETS := \
	./pkg/spec:FuzzParseAddon \
	./pkg/preflight:FuzzCompareCRD \
	./pkg/spec:FuzzParseManifest \
	./pkg/spec:FuzzParseConfigBlob \
	./pkg/config:FuzzCondition \
	./pkg/convert:FuzzConvert \
	./pkg/convert:FuzzMeasure \
	./pkg/sign:FuzzSigningConfig \
	./pkg/upgrade:FuzzCompare \
	./pkg/archive:FuzzExtract \
	./pkg/archive:FuzzExtractTar \
	./pkg/archive:FuzzIgnorePatterns \
	./pkg/archive:FuzzDigests \
	./pkg/schema:FuzzCompile \
	./pkg/schema:FuzzValidate \
	./pkg/render:FuzzBuild \
	./pkg/render:FuzzPlainJSON \
	./pkg/render:FuzzScanYAML \
	./pkg/render:FuzzMayAlias \
	./pkg/verify:FuzzParsePolicy \
	./pkg/verify:FuzzParseVerificationSummary \
	./pkg/verify:FuzzImageGlob \
	./pkg/consume:FuzzParseArg \
	./pkg/prune:FuzzDigestList \
	./pkg/verify:FuzzMatchPattern \
	./pkg/verify:FuzzParseTrustedRoot \
	./pkg/verify:FuzzCreateTrustedRoot \
	./pkg/provenance:FuzzSourceURI \
	./pkg/semver:FuzzSelect \
	./pkg/mirror:FuzzParse \
	./pkg/mirror:FuzzParseIndex \
	./pkg/stack:FuzzParse \
	./pkg/stack:FuzzParseLock \
	./pkg/sbom:FuzzRead

.PHONY: all build test test-unit fuzz fuzz-short demo lint conformance clean tools apt-tools peers prebuild bench bench-compare cluster-bin cluster cluster-down e2e

all: build

# A cold Go cache compiles for minutes: heartbeat.sh says so every 30 s.
build:
	@./scripts/heartbeat.sh "build: compiling $(BIN) (from a cold Go cache several minutes on 2 cores)" \
		$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/addonpack

tools: $(GOIMPORTS) apt-tools peers

apt-tools:
	@echo "tools: Debian packages the tests run against (docker-registry, skopeo), if missing" >&2
	./scripts/ensure-tools.sh

peers:
	@echo "tools: peer CLIs cosign (v2 and v3), oras, crane, built from source if missing (cold: 20-30 minutes on 2 cores, mostly the two cosigns; then nothing)" >&2
	./scripts/install-peers.sh

## test: everything CI runs — tools, vet, unit tests with the race detector, short fuzzing.
## The peer CLIs build while the project compiles (vet, then every package with the race
## detector, as the tests need them): the two builds share the cores and the Go caches, and the
## waits of one (module downloads, cosign's long link) are the other's compile time.
test: apt-tools
	$(MAKE) -j2 peers prebuild
	$(MAKE) test-unit fuzz-short

# go list -export, not go build or go test -exec true: it compiles the packages and their
# dependencies into the build cache and links nothing (go build would link the three main
# packages with -race and throw them away; test files and test-only dependencies are left to
# test-unit, which links each test binary once).
prebuild: lint
	@./scripts/heartbeat.sh "prebuild: compiling the project's packages with the race detector (no test runs yet)" \
		$(GO) list -export -race $(PKGS) >/dev/null

# -timeout: the CLI, examples and interop packages drive real registries, signing and
# peer CLIs; on two busy cores they can pass go test's default of 10 minutes.
# go test -json through internal/testprogress: a line when each package ends, the output
# of failed tests, a line at least every 30 s naming the packages still running (the CLI
# package alone runs for minutes), and the closing line "N passed, N failed, N skipped".
TESTPROGRESS := bin/tools/testprogress
test-unit:
	$(GO) build -o $(TESTPROGRESS) ./internal/testprogress
	bash -o pipefail -c 'ADDONPACK_REQUIRE_PEERS=1 $(GO) test -race -count=1 -timeout 40m -json $(PKGS) | $(TESTPROGRESS)'

fuzz-short:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=1s $$pkg || exit 1; \
	done

fuzz:
	$(MAKE) fuzz-short FUZZTIME=$(FUZZ_LONG)

## demo: the main job end to end against the embedded registry.
demo: build
	./scripts/demo.sh $(BIN)

lint: $(GOIMPORTS)
	@./scripts/heartbeat.sh "lint: go vet (compiles every package first)" $(GO) vet $(PKGS)
	@out=$$(gofmt -l cmd pkg testregistry internal specs examples e2e 2>/dev/null); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@out=$$($(GOIMPORTS) -local $(MODULE) -l cmd pkg testregistry internal specs examples bench e2e 2>/dev/null); \
	if [ -n "$$out" ]; then echo "import grouping needed (goimports -local $(MODULE) -w FILE):"; echo "$$out"; exit 1; fi

# goimports, pinned, built with this Go into bin/tools (x/tools v0.52.0 needs Go 1.26.0).
$(GOIMPORTS):
	GOBIN=$(CURDIR)/bin/tools $(GO) install golang.org/x/tools/cmd/goimports@$(GOIMPORTS_VERSION)
	mv bin/tools/goimports $@

## cluster: etcd, kube-apiserver and the Flux source- and kustomize-controllers on loopback
## (scripts/cluster.sh; KUBECONFIG=.cluster/kubeconfig), from binaries built once into
## bin/cluster from pinned modules (scripts/build-cluster.sh: cold, about 15-20 minutes on 2 cores).
cluster-bin:
	./scripts/build-cluster.sh

cluster: cluster-bin
	./scripts/cluster.sh up

cluster-down:
	./scripts/cluster.sh down

## e2e: the end-to-end suite (e2e/, build tag e2e) against `make cluster`; ends with "N passed, N failed".
## The cluster stays up for the next run (make cluster-down stops it).
E2E_TIMEOUT ?= 20m
e2e: build cluster
	$(GO) build -o $(TESTPROGRESS) ./internal/testprogress
	bash -o pipefail -c '$(GO) test -tags e2e -count=1 -timeout $(E2E_TIMEOUT) -json ./e2e/ | $(TESTPROGRESS)'

conformance: build
	./scripts/conformance.sh $(BIN)

clean:
	rm -rf bin

## bench: the performance harness (bench/README.md): addonpack vs tar+oras+cosign, medians and ratios.
## Quick by default (3 reps, no 1 GB add-on); `make bench BENCH_REPS=7`, `BENCH_HUGE=1` for the RSS check.
BENCH_REPS ?= 3
BENCH_HUGE ?= 0
## bench-compare: REV's binary against the work tree's, interleaved (make bench-compare REV=3554e81)
bench-compare:
	@test -n "$(REV)" || { echo "usage: make bench-compare REV=<git rev> [BENCH_REPS=5] [BENCH_LARGE=0] [BENCH_REGISTRY=host:port]" >&2; exit 2; }
	BENCH_REPS=$(BENCH_REPS) ./bench/compare.sh $(REV)

bench:
	./scripts/ensure-tools.sh
	./bench/install-peers.sh
	BENCH_REPS=$(BENCH_REPS) BENCH_HUGE=$(BENCH_HUGE) $(GO) run ./bench/cmd/addonbench
