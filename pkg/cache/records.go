package cache

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
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
	return c.writeSealed("refs", key(ref), fmt.Sprintf("%s %s %d", desc.Digest, desc.MediaType, desc.Size))
}

// Ref returns what ref last resolved to, or ErrMiss (also when the cache is
// not private).
func (c *Cache) Ref(ref string) (ocispec.Descriptor, error) {
	if !c.private {
		return ocispec.Descriptor{}, ErrMiss
	}
	payload, ok := c.readSealed("refs", key(ref))
	if !ok {
		return ocispec.Descriptor{}, ErrMiss
	}
	var d ocispec.Descriptor
	var dg string
	if _, err := fmt.Sscanf(payload, "%s %s %d", &dg, &d.MediaType, &d.Size); err != nil {
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
	return c.writeSealed("verified", key(dg.String(), policy), time.Now().UTC().Format(time.RFC3339))
}

// Verified reports whether dg passed policy within maxAge (0: any age). It
// is always false for a cache that is not private, and for a record that is
// not sealed with this cache's record key.
func (c *Cache) Verified(dg digest.Digest, policy string, maxAge time.Duration) bool {
	if !c.private {
		return false
	}
	payload, ok := c.readSealed("verified", key(dg.String(), policy))
	if !ok {
		return false
	}
	at, err := time.Parse(time.RFC3339, payload)
	return err == nil && (maxAge == 0 || time.Since(at) <= maxAge)
}

// writeSealed writes "payload\nMAC" where MAC is an HMAC of the record's
// place and payload under the record key (no MAC without a key).
func (c *Cache) writeSealed(sub, name, payload string) error {
	return c.writeRecord(sub, name, []byte(payload+"\n"+c.seal(sub, name, payload)+"\n"))
}

// readSealed returns a record's payload when its MAC checks out.
func (c *Cache) readSealed(sub, name string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(c.dir, sub, name))
	if err != nil {
		return "", false
	}
	payload, mac, _ := strings.Cut(strings.TrimRight(string(data), "\n"), "\n")
	return payload, hmac.Equal([]byte(mac), []byte(c.seal(sub, name, payload)))
}

func (c *Cache) seal(sub, name, payload string) string {
	if c.recordKey == nil {
		return ""
	}
	m := hmac.New(sha256.New, c.recordKey)
	fmt.Fprintf(m, "%s\x00%s\x00%s", sub, name, payload)
	return hex.EncodeToString(m.Sum(nil))
}
