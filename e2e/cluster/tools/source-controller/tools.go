//go:build tools

// Package tools records the command scripts/build-cluster.sh builds from this
// module, so that `go mod tidy` keeps its requirements.
package tools

import _ "github.com/fluxcd/source-controller"
