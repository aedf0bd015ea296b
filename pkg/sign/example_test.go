package sign_test

import (
	"context"
	"fmt"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
)

// Sign a pushed artifact with a cosign key, unlocked once.
func Example() {
	ctx := context.Background()
	signer, err := keys.LoadSigner(ctx, "cosign.key", keys.StaticPass([]byte("secret")), nil)
	if err != nil {
		fmt.Println("no key")
		return
	}
	c, _ := registry.New(registry.Options{})
	ref, _ := registry.ParseReference("localhost:5000/addons/hello:0.1.0")
	desc, err := c.Resolve(ctx, ref)
	if err != nil {
		return
	}
	res, err := sign.Sign(ctx, sign.Target{Client: c, Ref: ref}, desc, signer, sign.Options{Format: sign.FormatClassic})
	if err == nil {
		fmt.Println(res.Location)
	}
	// Output: no key
}
