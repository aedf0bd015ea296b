package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
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

// memoKey names one render check: the packed tree (the layer digest covers
// every file, addon.yaml, the schema and the defaults included), the
// kustomization root and the renderer that checked it.
func (o Options) memoKey(layer, root string) string {
	h := sha256.New()
	fmt.Fprintf(h, "addonpack render check v1\x00%s\x00%s\x00%s", o.Renderer, layer, root)
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
