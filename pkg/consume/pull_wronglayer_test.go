package consume_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/testregistry"
)

// storedLayer is a valid package tree (the addon.yaml pushRaw's config
// describes, and one data file) as tar+gzip with stored blocks, so that any
// data of the same length gives a layer of the same length.
func storedLayer(t *testing.T, data []byte) []byte {
	t.Helper()
	addon := []byte("apiVersion: addonpack.dev/v1alpha1\nkind: Addon\nmetadata:\n  name: evil\nspec:\n  version: 1.0.0\n  description: x\n")
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(zw)
	for _, f := range []struct {
		name string
		data []byte
	}{{"addon.yaml", addon}, {"data.yaml", data}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(f.data))}); err != nil {
			t.Fatal(err)
		}
		tw.Write(f.data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// substituted serves other bytes for one blob: what a registry or a network
// that alters content would do.
type substituted struct {
	testregistry.Storage
	digest string
	data   []byte
}

type readSeekNopCloser struct{ *bytes.Reader }

func (readSeekNopCloser) Close() error { return nil }

func (s substituted) OpenBlob(ctx context.Context, d string) (io.ReadSeekCloser, int64, error) {
	if d == s.digest {
		return readSeekNopCloser{bytes.NewReader(s.data)}, int64(len(s.data)), nil
	}
	return s.Storage.OpenBlob(ctx, d)
}

// TestWrongLayerLeavesNothing: a substitute for the content layer that is
// itself a valid, complete package tree (of the same size, or not) fails
// the pull with the size or digest error naming the layer, and leaves
// nothing behind: no target, no staging directory, and with Force the
// previous tree intact.
func TestWrongLayerLeavesNothing(t *testing.T) {
	genuine := storedLayer(t, bytes.Repeat([]byte("a: 1\n"), 2000))
	tests := []struct {
		name       string
		substitute []byte
		want       error
	}{
		{"valid tree of the same size", storedLayer(t, bytes.Repeat([]byte("b: 2\n"), 2000)), errdef.ErrDigestMismatch},
		{"valid tree, shorter", storedLayer(t, bytes.Repeat([]byte("b: 2\n"), 1000)), errdef.ErrSizeMismatch},
		{"valid tree, longer", storedLayer(t, bytes.Repeat([]byte("b: 2\n"), 3000)), errdef.ErrSizeMismatch},
		{"not gzip at all", bytes.Repeat([]byte{0xff}, len(genuine)), errdef.ErrDigestMismatch},
	}
	for _, tt := range tests {
		for _, force := range []bool{false, true} {
			name := tt.name
			if force {
				name += ", force over an existing tree"
			}
			t.Run(name, func(t *testing.T) {
				st := testregistry.NewMemoryStorage()
				reg := testregistry.New(t, testregistry.WithStorage(st))
				ref, c := pushRaw(t, reg.Host(), genuine, nil)
				layer := digest.FromBytes(genuine)
				// The genuine layer pulls: the substitute below differs only in its bytes.
				if _, err := consume.Pull(context.Background(), artifact.Remote{Client: c, Ref: ref}, filepath.Join(t.TempDir(), "ok"), consume.PullOptions{}); err != nil {
					t.Fatalf("the genuine artifact does not pull: %v", err)
				}
				bad := testregistry.New(t, testregistry.WithStorage(substituted{Storage: st, digest: layer.String(), data: tt.substitute}))
				ref.Registry = bad.Host()
				parent := t.TempDir()
				target := filepath.Join(parent, "out")
				if force {
					if err := os.MkdirAll(target, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(target, "keep"), []byte("mine"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				_, err := consume.Pull(context.Background(), artifact.Remote{Client: c, Ref: ref}, target, consume.PullOptions{Force: force})
				if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), layer.String()) {
					t.Fatalf("got %v, want %v naming the layer %s", err, tt.want, layer)
				}
				if !force {
					assertOnly(t, parent)
					return
				}
				assertOnly(t, parent, "out")
				if b, err := os.ReadFile(filepath.Join(target, "keep")); err != nil || string(b) != "mine" {
					t.Fatalf("the previous tree was not kept: %q, %v", b, err)
				}
				if ents, _ := os.ReadDir(target); len(ents) != 1 {
					t.Fatalf("the previous tree was changed: %v", ents)
				}
			})
		}
	}
}
