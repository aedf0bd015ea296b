//go:build tools

// Package tools records the commands scripts/build-cluster.sh builds from this
// module, so that `go mod tidy` keeps their requirements.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
