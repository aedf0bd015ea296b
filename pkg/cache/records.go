package cache

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// SetRef records that ref resolved to desc, for --offline.
func (c *Cache) SetRef(ref string, desc ocispec.Descriptor) error {
	return c.writeRecord("refs", key(ref), fmt.Appendf(nil, "%s %s %d\n", desc.Digest, desc.MediaType, desc.Size))
}

// Ref returns what ref last resolved to, or ErrMiss (also when the cache is
// not private).
func (c *Cache) Ref(ref string) (ocispec.Descriptor, error) {
	if !c.private {
		return ocispec.Descriptor{}, ErrMiss
	}
	data, err := os.ReadFile(filepath.Join(c.dir, "refs", key(ref)))
	if errors.Is(err, os.ErrNotExist) {
		return ocispec.Descriptor{}, ErrMiss
	}
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	var d ocispec.Descriptor
	var dg string
	if _, err := fmt.Sscanf(strings.TrimSpace(string(data)), "%s %s %d", &dg, &d.MediaType, &d.Size); err != nil {
		return ocispec.Descriptor{}, ErrMiss
	}
	d.Digest = digest.Digest(dg)
	if d.Digest.Validate() != nil {
		return ocispec.Descriptor{}, ErrMiss
	}
	return d, nil
}

// MarkVerified records that dg passed the policy whose stable digest is
// policy.
func (c *Cache) MarkVerified(dg digest.Digest, policy string) error {
	return c.writeRecord("verified", key(dg.String(), policy), []byte(time.Now().UTC().Format(time.RFC3339)+"\n"))
}

// Verified reports whether dg passed policy within maxAge (0: any age). It
// is always false for a cache that is not private.
func (c *Cache) Verified(dg digest.Digest, policy string, maxAge time.Duration) bool {
	if !c.private {
		return false
	}
	fi, err := os.Stat(filepath.Join(c.dir, "verified", key(dg.String(), policy)))
	if err != nil {
		return false
	}
	return maxAge == 0 || time.Since(fi.ModTime()) <= maxAge
}
