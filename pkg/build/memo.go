package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/addonpack/addonpack/pkg/render"
)

// Memo remembers trees whose render check passed. Kustomize over tens of
// megabytes of CRDs takes seconds, and publishing the same tree again (a
// retried CI job, a second registry, a batch) need not pay it twice. Only
// the render check is remembered; addon.yaml, the schema, the defaults and
// the package rules are checked on every build.
type Memo interface {
	// Validated returns the images a tree rendered to, if key passed.
	Validated(key string) (images []string, ok bool)
	// RememberValidated records that key passed, rendering images.
	RememberValidated(key string, images []string) error
}

// memoKey names one render check: the renderer that checked it, the packed
// tree (the layer digest covers every file; Build makes sure the addon.yaml
// it parsed is the packed one) and, though they follow from the tree, what
// the check rendered: the parsed addon.yaml (root, every declared
// component), the config object and the components it switched on.
func (o Options) memoKey(layer string, addon []byte, in render.Input) string {
	h := sha256.New()
	fmt.Fprintf(h, "addonpack render check v2\x00%s\x00%s\x00%x\x00%s\x00%d:%s", o.Renderer, layer, addon, in.Root, len(in.Config), in.Config)
	for _, c := range in.Components {
		fmt.Fprintf(h, "\x00%d:%s", len(c), c)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// memo returns the Memo to use, or nil: without a Renderer identity a
// remembered pass could be one of another kustomize.
func (o Options) memo() Memo {
	if o.Memo == nil || strings.TrimSpace(o.Renderer) == "" {
		return nil
	}
	return o.Memo
}
