package config_test

import (
	"context"
	"fmt"
	"os"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/spec"
)

// A user's config object is merged over the packed defaults, the schema's
// defaults fill the rest, and the result is validated: every failing field
// is reported, by path.
func ExampleType_Resolve() {
	dir := "../../examples/hello"
	data, _ := os.ReadFile(dir + "/addon.yaml")
	a, _ := spec.ParseAddon(data, "addon.yaml")
	typ, err := config.Load(context.Background(), os.DirFS(dir), a, schema.DefaultLimits(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	values := []byte("apiVersion: hello.addons.example.com/v1alpha1\nkind: HelloConfig\nspec:\n  replicas: 3\n")
	r, err := typ.Resolve(values, "values.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s", r.Object)

	bad := []byte("apiVersion: hello.addons.example.com/v1alpha1\nkind: HelloConfig\nspec:\n  replicas: 0\n  message: \"\"\n")
	_, err = typ.Resolve(bad, "bad.yaml")
	fmt.Println(err)
	// Output:
	// apiVersion: hello.addons.example.com/v1alpha1
	// kind: HelloConfig
	// metadata:
	//   name: hello
	// spec:
	//   message: hello from hello
	//   replicas: 3
	// bad.yaml: does not validate against config/schema.yaml:
	// spec.message: must be at least 1 character long
	// spec.replicas: must be >= 1
}
