package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/bench/gen"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/push"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/testregistry"
)

func keyFile(b *testing.B) string {
	b.Helper()
	pair, err := keys.GenerateKeyPair(keys.StaticPass([]byte("pw")))
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "k.key")
	if err := os.WriteFile(p, pair.PrivatePEM, 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkUnlockKey measures loading a cosign-format encrypted private key
// (scrypt + secretbox): once per `addonpack push --key` process today.
func BenchmarkUnlockKey(b *testing.B) {
	path := keyFile(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := keys.LoadSigner(ctx, path, keys.StaticPass([]byte("pw")), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPublish measures push.Push of the small add-on to an in-process
// testregistry, each iteration into a fresh repository (nothing to skip):
// unsigned, and signed with provenance (the key unlocked once, outside the
// loop, as a batch mode would). The difference between the two, plus
// BenchmarkUnlockKey, is the per-process signing overhead of
// `addonpack push --key`.
func BenchmarkPublish(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	if _, err := gen.Write(dir, gen.Small("small", 1)); err != nil {
		b.Fatal(err)
	}
	reg := testregistry.New(b)
	c, err := registry.New(registry.Options{})
	if err != nil {
		b.Fatal(err)
	}
	signer, err := keys.LoadSigner(ctx, keyFile(b), keys.StaticPass([]byte("pw")), nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, signed := range []bool{false, true} {
		name := "small/unsigned"
		if signed {
			name = "small/signed+provenance"
		}
		b.Run(name, func(b *testing.B) {
			opts := push.Options{}
			if signed {
				opts.Sign = &push.SignOptions{Signer: signer, BuilderID: "https://ci.example/bench"}
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				ref := registry.Reference{Registry: reg.Host(), Repository: fmt.Sprintf("bench/%s/%d", strings.ReplaceAll(name, "+", "-"), i), Tag: "1.0.0"}
				i++
				if _, err := push.Push(ctx, c, dir, ref, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
