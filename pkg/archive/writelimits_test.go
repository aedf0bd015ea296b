package archive

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestWriteLimitsHonoured: the builder's limits, not the defaults, bound
// what Write packs.
func TestWriteLimitsHonoured(t *testing.T) {
	data := strings.Repeat("x", 100)
	files := []File{{Path: "big.yaml", Size: int64(len(data)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(data)), nil
	}}}
	var buf bytes.Buffer
	if err := WriteLimits(context.Background(), &buf, files, Limits{MaxFileSize: 50}); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "big.yaml") {
		t.Fatalf("a file over the given limit: %v", err)
	}
	buf.Reset()
	if err := WriteLimits(context.Background(), &buf, files, Limits{MaxFileSize: 200}); err != nil {
		t.Fatal(err)
	}
	var def bytes.Buffer
	if err := Write(context.Background(), &def, files); err != nil || !bytes.Equal(def.Bytes(), buf.Bytes()) {
		t.Fatalf("limits changed the bytes: %v", err)
	}
}
