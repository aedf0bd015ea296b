package consume_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/cache"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/layout"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

func openCache(t *testing.T) *cache.Cache {
	t.Helper()
	ch, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ch.WithRecordKey(bytes.Repeat([]byte{7}, 32))
}

func TestOptionsRefused(t *testing.T) {
	reg := testregistry.New(t)
	pub := testartifact.PushHello(t, reg.Host(), "addons/hello", "0.1.0", build.Options{})
	s, _, _ := testkey.New(t)
	pol := testartifact.Policy(t, verify.KeyOptions{}, s)
	tests := []struct {
		name string
		o    consume.Options
	}{
		{"no policy", consume.Options{Client: pub.Client}},
		{"policy and skip", consume.Options{Client: pub.Client, Policy: pol, InsecureSkipVerify: true}},
		{"offline without a cache", consume.Options{Client: pub.Client, Policy: pol, Offline: true}},
		{"no client", consume.Options{Policy: pol}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := consume.OpenReference(pub.Ref, tt.o)
			if !errors.Is(err, consume.ErrOptions) || errdef.ClassOf(err) != errdef.ErrInvalidArgument {
				t.Fatalf("got %v, want ErrOptions (invalid argument)", err)
			}
		})
	}
}

// TestVerifiedCachedByDigest walks the rules: unsigned is refused before
// any content is read; signed passes and is remembered; offline, the
// remembered pass and the cached blobs answer without a request; another
// policy is not answered by the memo.
func TestVerifiedCachedByDigest(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	pub := testartifact.PushHello(t, reg.Host(), "addons/hello", "0.1.0", build.Options{})
	s, _, _ := testkey.New(t)
	pol := testartifact.Policy(t, verify.KeyOptions{}, s)
	ch := openCache(t)
	online := consume.Options{Client: pub.Client, Cache: ch, Policy: pol}

	a, err := consume.OpenReference(pub.Ref, online)
	if err != nil {
		t.Fatal(err)
	}
	reg.ResetLog()
	if _, err := a.Load(ctx); !errors.Is(err, verify.ErrUnsigned) {
		t.Fatalf("unsigned: got %v, want ErrUnsigned", err)
	}
	for _, r := range reg.Log() {
		if strings.Contains(r.Path, "/blobs/") {
			t.Fatalf("a blob was read before verification: %s %s", r.Method, r.Path)
		}
	}

	testartifact.Sign(t, pub, s)
	loaded, err := a.Pull(ctx, filepath.Join(t.TempDir(), "online"), consume.PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Descriptor.Digest != pub.Desc.Digest || loaded.Addon.Metadata.Name != "hello" {
		t.Fatalf("pulled %s %s", loaded.Descriptor.Digest, loaded.Addon.Metadata.Name)
	}

	offline := online
	offline.Offline = true
	a, err = consume.OpenReference(pub.Ref, offline)
	if err != nil {
		t.Fatal(err)
	}
	reg.ResetLog()
	dir := filepath.Join(t.TempDir(), "hello")
	res, err := a.Pull(ctx, dir, consume.PullOptions{})
	if err != nil {
		t.Fatalf("offline pull after a verified load: %v", err)
	}
	if res.Descriptor.Digest != pub.Desc.Digest {
		t.Errorf("offline pulled %s, want %s", res.Descriptor.Digest, pub.Desc.Digest)
	}
	if _, err := os.Stat(filepath.Join(dir, "addon.yaml")); err != nil {
		t.Error(err)
	}
	if log := reg.Log(); len(log) != 0 {
		t.Errorf("offline made %d requests, the first %s %s", len(log), log[0].Method, log[0].Path)
	}

	other, _, _ := testkey.New(t)
	offline.Policy = testartifact.Policy(t, verify.KeyOptions{}, other)
	a, err = consume.OpenReference(pub.Ref, offline)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Load(ctx)
	if !errors.Is(err, verify.ErrNotRemembered) || !errors.Is(err, cache.ErrOffline) || !strings.Contains(err.Error(), pub.Desc.Digest.String()) {
		t.Fatalf("offline under another policy: got %v, want ErrNotRemembered and ErrOffline naming the digest", err)
	}
}

func TestInsecureSkipVerifyWarns(t *testing.T) {
	reg := testregistry.New(t)
	pub := testartifact.PushHello(t, reg.Host(), "addons/hello", "0.1.0", build.Options{})
	var warnings bytes.Buffer
	a, err := consume.OpenReference(pub.Ref, consume.Options{Client: pub.Client, InsecureSkipVerify: true, Warnings: &warnings})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "Warning: --insecure-skip-verify: " + pub.Ref.WithDigest(pub.Desc.Digest).String() + " is not verified"
	if !strings.HasPrefix(warnings.String(), want) {
		t.Errorf("warnings %q, want %q...", warnings.String(), want)
	}
}

func TestOpenLayout(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "layout")
	store := memory.New()
	res, err := build.Build(ctx, testartifact.ExampleDir("hello"), store, build.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := layout.WriteDir(ctx, store, res.Manifest, dir, "0.1.0"); err != nil {
		t.Fatal(err)
	}
	a, err := consume.ParseArg(dir + ":0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := testkey.New(t)
	if _, err := consume.Open(ctx, a, consume.Options{Policy: testartifact.Policy(t, verify.KeyOptions{}, s)}); !errors.Is(err, consume.ErrUnverifiable) {
		t.Fatalf("layout under a policy: got %v, want ErrUnverifiable", err)
	}
	var warnings bytes.Buffer
	art, err := consume.Open(ctx, a, consume.Options{InsecureSkipVerify: true, Warnings: &warnings})
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := art.Load(ctx)
	if err != nil || loaded.Addon.Metadata.Name != "hello" {
		t.Fatalf("layout: %v", err)
	}
	if !strings.Contains(warnings.String(), "is not verified") {
		t.Errorf("no warning: %q", warnings.String())
	}

	src, err := consume.ParseArg(testartifact.ExampleDir("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := consume.Open(ctx, src, consume.Options{InsecureSkipVerify: true}); !errors.Is(err, consume.ErrNotUsable) {
		t.Fatalf("source dir: got %v, want consume.ErrNotUsable", err)
	}
}

// TestPullRunsTheCallersCheckAfterVerification: a Verify of the caller's
// runs only once the artifact's own check passed, on the same digest.
func TestPullRunsTheCallersCheckAfterVerification(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	pub := testartifact.PushHello(t, reg.Host(), "addons/hello", "0.1.0", build.Options{})
	s, _, _ := testkey.New(t)
	a, err := consume.OpenReference(pub.Ref, consume.Options{Client: pub.Client, Policy: testartifact.Policy(t, verify.KeyOptions{}, s)})
	if err != nil {
		t.Fatal(err)
	}
	var seen []digest.Digest
	opts := consume.PullOptions{Verify: func(_ context.Context, d ocispec.Descriptor) error {
		seen = append(seen, d.Digest)
		return nil
	}}
	if _, err := a.Pull(ctx, filepath.Join(t.TempDir(), "a"), opts); !errors.Is(err, verify.ErrUnsigned) || len(seen) != 0 {
		t.Fatalf("unsigned: got %v and the caller's check saw %v; want ErrUnsigned first", err, seen)
	}
	testartifact.Sign(t, pub, s)
	if _, err := a.Pull(ctx, filepath.Join(t.TempDir(), "b"), opts); err != nil || len(seen) != 1 || seen[0] != pub.Desc.Digest {
		t.Fatalf("signed: got %v, the caller's check saw %v", err, seen)
	}
}
