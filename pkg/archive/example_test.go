package archive_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/addonpack/addonpack/pkg/archive"
)

func Example() {
	ctx := context.Background()
	src, _ := os.MkdirTemp("", "addon")
	defer os.RemoveAll(src)
	os.MkdirAll(filepath.Join(src, "base"), 0o755)
	os.WriteFile(filepath.Join(src, "base", "kustomization.yaml"), []byte("resources: []\n"), 0o644)
	os.WriteFile(filepath.Join(src, "schema.json"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(src, ".addonpackignore"), []byte("*.swp\n"), 0o644)
	os.WriteFile(filepath.Join(src, "notes.swp"), []byte("ignored"), 0o644)

	// Producer: scan the package tree and write the deterministic blob.
	files, err := archive.Scan(src, archive.DefaultLimits())
	if err != nil {
		log.Fatal(err)
	}
	var blob bytes.Buffer
	if err := archive.Write(ctx, &blob, files); err != nil {
		log.Fatal(err)
	}

	// Consumer: unpack into a fresh, empty directory; remove it on error.
	dst, _ := os.MkdirTemp("", "unpacked")
	defer os.RemoveAll(dst)
	stats, err := archive.Extract(ctx, bytes.NewReader(blob.Bytes()), int64(blob.Len()), dst, archive.DefaultLimits())
	if err != nil {
		os.RemoveAll(dst)
		log.Fatal(err)
	}
	for _, f := range files {
		fmt.Println(f.Path)
	}
	fmt.Printf("%d files, %d dirs, %d bytes\n", stats.Files, stats.Dirs, stats.Bytes)
	// Output:
	// .addonpackignore
	// base/kustomization.yaml
	// schema.json
	// 3 files, 1 dirs, 23 bytes
}
