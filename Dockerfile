# syntax=docker/dockerfile:1
# addonpack with kubectl, for run-to-completion installs in a cluster (examples/install-job).
#
#   docker build -t ghcr.io/OWNER/addonpack:TAG .
#   docker buildx build --platform linux/amd64,linux/arm64 -t ghcr.io/OWNER/addonpack:TAG --push .
#
# The build stage compiles addonpack from this repository (static, trimmed paths) and downloads
# a pinned kubectl, checked against its published SHA-256. The runtime stage is Alpine (a POSIX
# shell for the Job's script, CA certificates) with both binaries, running as user 65532.

ARG GO_VERSION=1.26
ARG ALPINE_VERSION=3.22

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
# kubectl supports API servers one minor version either side of its own: match your clusters.
ARG KUBECTL_VERSION=v1.34.1
# Set by BuildKit from --platform.
ARG TARGETOS
ARG TARGETARCH
# The version provenance records: docker build --build-arg VERSION=$(git describe --tags --dirty) .
ARG VERSION=(devel)
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -buildvcs=false -ldflags="-s -w -X github.com/addonpack/addonpack/cmd/addonpack/commands.version=${VERSION}" -o /out/addonpack ./cmd/addonpack
RUN set -eu; \
    base="https://dl.k8s.io/release/${KUBECTL_VERSION}/bin/${TARGETOS}/${TARGETARCH}"; \
    curl -fsSLo /out/kubectl "$base/kubectl"; \
    echo "$(curl -fsSL "$base/kubectl.sha256")  /out/kubectl" | sha256sum -c -; \
    chmod 0755 /out/kubectl

FROM alpine:${ALPINE_VERSION}
RUN apk add --no-cache ca-certificates \
 && addgroup -S -g 65532 addonpack \
 && adduser -S -D -H -u 65532 -G addonpack -h /work addonpack \
 && install -d -o 65532 -g 65532 /work
COPY --from=build /out/addonpack /out/kubectl /usr/local/bin/
# HOME holds addonpack's cache and kubectl's discovery cache; with a read-only root
# filesystem, mount an emptyDir there (examples/install-job/job.yaml does).
ENV HOME=/work
WORKDIR /work
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/addonpack"]
CMD ["--help"]
