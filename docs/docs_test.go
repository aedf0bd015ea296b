// Package docs_test runs every shell block of README.md and docs/*.md as
// written: each document's blocks in order, in one bash session, in a
// directory of its own, with the addonpack binary built from this
// repository. A block that cannot run here (it clones from GitHub, needs a
// cluster, a Sigstore or an OIDC token) is marked, on the line before its
// fence, <!-- not-run: REASON -->, and the reason names what runs it
// instead.
package docs_test

import (
	"testing"

	"github.com/addonpack/addonpack/internal/testbin"
)

// addonpackBin is the CLI built from this repository once per test binary.
var addonpackBin string

func TestMain(m *testing.M) { testbin.Main(m, "..", &addonpackBin) }
