package verify_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// Verify an artifact before reading any of its content.
func Example() {
	ctx := context.Background()
	c, _ := registry.New(registry.Options{})
	ref, _ := registry.ParseReference("localhost:5000/addons/hello:0.1.0")
	policy, err := verify.PolicyFromKeys(ctx, []string{"cosign.pub"}, verify.KeyOptions{
		Provenance: verify.ProvenanceRules{Required: true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	desc, err := c.Resolve(ctx, ref) // resolve once, then verify and read by digest
	if err != nil {
		return
	}
	res, err := verify.Verify(ctx, verify.Target{Client: c, Ref: ref}, desc, policy)
	switch {
	case errors.Is(err, verify.ErrVerification):
		fmt.Println("refused:", err)
	case err != nil:
		fmt.Println("could not check:", err) // e.g. registry.ErrUnreachable
	default:
		fmt.Println("signed by", res.SignedBy)
	}
}
