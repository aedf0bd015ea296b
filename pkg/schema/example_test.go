package schema_test

import (
	"errors"
	"fmt"

	"github.com/addonpack/addonpack/pkg/schema"
)

func Example() {
	s, err := schema.Compile([]byte(`
type: object
required: [upstreams]
properties:
  replicas: {type: integer, minimum: 1, default: 2}
  upstreams:
    type: array
    items: {type: string, format: ipv4}
  cacheTTL: {type: integer, minimum: 0, maximum: 3600, default: 30}
  nodeLocalCache:
    type: object
    default: {}
    properties:
      enabled: {type: boolean, default: false}
`), "config/schema.yaml", schema.DefaultLimits())
	if err != nil {
		fmt.Println(err)
		return
	}

	obj, err := schema.ParseObject([]byte(`
apiVersion: addons.addonpack.dev/v1alpha1
kind: CoreDNSConfig
spec:
  upstreams: [8.8.8.8]
`), "coredns.yaml", "addons.addonpack.dev/v1alpha1", "CoreDNSConfig")
	if err != nil {
		fmt.Println(err)
		return
	}
	spec, err := s.ApplyDefaults(obj.Spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("defaulted:", spec)
	fmt.Println("valid:", s.Validate(spec) == nil)

	bad, _ := schema.Decode([]byte(`{"replicas": 0, "upstreams": ["8.8.8.8", "dns.google"], "cacheTTL": 7200}`), "bad.json")
	err = s.Validate(bad)
	fmt.Println(errors.Is(err, schema.ErrInvalid))
	fmt.Println(err)
	// Output:
	// defaulted: map[cacheTTL:30 nodeLocalCache:map[enabled:false] replicas:2 upstreams:[8.8.8.8]]
	// valid: true
	// true
	// spec.cacheTTL: must be <= 3600
	// spec.replicas: must be >= 1
	// spec.upstreams[1]: "dns.google" is not a valid ipv4
}
