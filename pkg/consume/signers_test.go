package consume_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

// TestLoadSigned: LoadSigned names the key that signed even when the memo
// remembers the digest (it verifies afresh), records its pass for the
// consumers that follow, refuses what Load refuses, and names no signer
// without verification.
func TestLoadSigned(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.New(t)
	pub := testartifact.PushHello(t, reg.Host(), "addons/hello", "0.1.0", build.Options{})
	s, _, _ := testkey.New(t)
	pol := testartifact.Policy(t, verify.KeyOptions{}, s)
	ch := openCache(t)
	c := consume.New(consume.Options{Client: pub.Client, Cache: ch, Policy: pol})

	if _, _, err := c.LoadSigned(ctx, pub.Ref, ""); !errors.Is(err, verify.ErrUnsigned) {
		t.Fatalf("unsigned: got %v, want ErrUnsigned", err)
	}
	testartifact.Sign(t, pub, s)
	if _, err := c.Load(ctx, pub.Ref, ""); err != nil { // remembered from here on
		t.Fatal(err)
	}
	reg.ResetLog()
	l, signers, err := c.LoadSigned(ctx, pub.Ref, "")
	if err != nil {
		t.Fatal(err)
	}
	if l.Descriptor.Digest != pub.Desc.Digest || len(signers) != 1 || signers[0].KeyID != s.ID() || signers[0].Name == "" {
		t.Fatalf("loaded %s signed by %+v, want %s signed by %s", l.Descriptor.Digest, signers, pub.Desc.Digest, s.ID())
	}
	fetched := false
	for _, r := range reg.Log() {
		fetched = fetched || strings.Contains(r.Path, "/referrers/") || strings.HasSuffix(r.Path, ".sig")
	}
	if !fetched {
		t.Errorf("LoadSigned answered from the memo: no signature was read (%+v)", reg.Log())
	}
	if !ch.Verified(pub.Desc.Digest, verify.MemoKey(pol, pub.Ref), 0) {
		t.Error("LoadSigned's pass is not remembered")
	}

	insecure := consume.New(consume.Options{Client: pub.Client, InsecureSkipVerify: true})
	if _, signers, err := insecure.LoadSigned(ctx, pub.Ref, ""); err != nil || signers != nil {
		t.Fatalf("insecure: %+v %v, want no signers", signers, err)
	}
	if _, _, err := c.LoadSigned(ctx, pub.Ref, "another"); err == nil {
		t.Fatal("LoadSigned bound hello to another name")
	}
}
