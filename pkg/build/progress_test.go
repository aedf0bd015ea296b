package build_test

import (
	"crypto/rand"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/addonpack/addonpack/pkg/build"
)

// TestProgress: Options.Progress is told the bytes of the package's files
// read while packing, rising from 0 to their total.
func TestProgress(t *testing.T) {
	dir := copyTree(t, helloExample, 0o644, time.Now())
	noise := make([]byte, 1<<20)
	rand.Read(noise)
	if err := os.WriteFile(filepath.Join(dir, "payload.txt"), []byte(base64.StdEncoding.EncodeToString(noise)), 0o644); err != nil {
		t.Fatal(err)
	}
	payload := int64(base64.StdEncoding.EncodedLen(len(noise)))
	type call struct{ read, total int64 }
	var calls []call
	buildManifest(t, dir, build.Options{Progress: func(read, total int64) { calls = append(calls, call{read, total}) }})
	if len(calls) < 3 {
		t.Fatalf("progress told %d times: %v", len(calls), calls)
	}
	// The total is every packed file: the payload and the add-on's own few KiB.
	want := calls[0].total
	if calls[0].read != 0 || want < payload || want > payload+64<<10 || calls[len(calls)-1] != (call{want, want}) {
		t.Fatalf("progress calls: first %v, last %v of %d; want 0 then all of a total just above %d", calls[0], calls[len(calls)-1], len(calls), payload)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i].read < calls[i-1].read || calls[i].total != want {
			t.Fatalf("call %d: %v after %v", i, calls[i], calls[i-1])
		}
	}
}
