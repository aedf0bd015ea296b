package provenance_test

import (
	"fmt"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/provenance"
)

func ExampleNew() {
	st, _ := provenance.New(provenance.Facts{
		SubjectName: "registry.example.com/addons/hello", SubjectDigest: digest.FromString("m"),
		AddonName: "hello", AddonVersion: "0.1.0", BuilderID: "https://ci.example/builder",
	})
	fmt.Println(st.GetPredicateType())
	// Output: https://slsa.dev/provenance/v1
}
