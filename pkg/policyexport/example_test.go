package policyexport_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/addonpack/addonpack/pkg/policyexport"
	"github.com/addonpack/addonpack/pkg/registry"
)

// A policy Flux cannot wholly enforce is refused, every lost item named;
// Lossy exports it with those items as comments, below the note every
// Flux export opens with.
func Example() {
	ref, _ := registry.ParseReference("registry.example.com/addons/hello:0.1.0")
	opts := policyexport.Options{For: "flux", Ref: &ref}
	_, err := policyexport.ExportFile(context.Background(), "testdata/policies/strict.yaml", nil, opts)
	fmt.Println(errors.Is(err, policyexport.ErrInexpressible))

	opts.Lossy = true
	res, err := policyexport.ExportFile(context.Background(), "testdata/policies/strict.yaml", nil, opts)
	if err != nil {
		panic(err)
	}
	fmt.Print(string(res.Header))
	fmt.Println(res.Files[0].Name)
	// Output:
	// true
	// # addonpack: Flux checks the signature, not that the signed add-on's name and version are those of the reference (specs/artifact.md 11.6); verify with addonpack before you change --ref
	// # addonpack: not enforced by Flux: scope "registry.example.com/addons": key "release" validity window (notBefore/notAfter)
	// flux.yaml
}
