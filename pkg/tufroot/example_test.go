package tufroot_test

import (
	"context"
	"fmt"

	"github.com/addonpack/addonpack/pkg/tufroot"
)

// Fetching Sigstore's public-good trusted root, online, starting from the
// TUF root embedded in sigstore-go. (Compiled, not run: the tests reach
// only loopback; fetch_test.go runs FetchFile against a TUF repository
// there.)
func ExampleFetchFile() {
	digest, err := tufroot.FetchFile(context.Background(), tufroot.Options{}, "trusted_root.json", false)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pin", digest)
}
