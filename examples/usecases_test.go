// The use cases (docs/use-cases.md), run for real against an in-process
// registry with the addonpack binary built from this repository:
//
//   - examples/ci: the publisher's GitHub Actions release workflow; every run:
//     step is executed in order with bash and the env it declares;
//   - examples/policies: the enterprise consumer's two-of-three policy; the
//     README's commands are executed as written, with their documented exit codes;
//   - examples/install-job: the in-cluster install Job; the manifests are built
//     with kustomize and checked, and the Job's script is run with a fake kubectl;
//     the README's Flux commands are executed;
//   - Dockerfile and .dockerignore: checked structurally (no Docker engine here).
package examples_test

import (
	"testing"

	"github.com/addonpack/addonpack/internal/testbin"
)

// addonpackBin is the CLI built from this repository once per test binary.
var addonpackBin string

func TestMain(m *testing.M) { testbin.Main(m, "..", &addonpackBin) }
