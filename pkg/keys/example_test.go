package keys_test

import (
	"fmt"

	"github.com/addonpack/addonpack/pkg/keys"
)

func ExampleGenerateKeyPair() {
	pair, err := keys.GenerateKeyPair(keys.StaticPass([]byte("secret")))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(pair.ID) == len("sha256:")+64)
	// Output: true
}
