// Package e2e is the end-to-end suite: addonpack's output applied to a real
// kube-apiserver (etcd behind it) and consumed by the real Flux
// source-controller and kustomize-controller, all started by
// scripts/cluster.sh from binaries scripts/build-cluster.sh builds from pinned
// Go modules. Its tests carry the e2e build tag: `make e2e` builds the
// binaries, starts the cluster and runs them (`make test` does not); with the
// tag and no cluster they fail, they never skip.
package e2e
