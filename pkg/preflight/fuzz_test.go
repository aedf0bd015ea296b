package preflight

import "testing"

// FuzzCompareCRD parses two CustomResourceDefinitions as an installed and a
// rendered one and compares them: never a panic, and a CRD compared with
// itself loses nothing.
func FuzzCompareCRD(f *testing.F) {
	objs, err := parseObjects([]byte(widgetCRD(widgetV1)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(objs[0].raw), []byte(objs[0].raw))
	f.Add([]byte(`{"spec":{"versions":[{"name":"v1","served":true,"schema":{"openAPIV3Schema":{"properties":{"a":{"items":{"properties":{"b":{}}}},"m":{"additionalProperties":{"properties":{"c":{}}}}}}}}]},"status":{"storedVersions":["v1"]}}`),
		[]byte(`{"spec":{"versions":[{"name":"v1","served":true,"schema":{"openAPIV3Schema":{"properties":{"m":{"additionalProperties":true}}}}}]}}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		old, err := ParseCRD(a)
		if err != nil {
			return
		}
		if got := compareCRD(old, old); len(got) != 0 && consistent(old) {
			t.Fatalf("a CRD compared with itself: %q", got)
		}
		if new, err := ParseCRD(b); err == nil {
			_ = compareCRD(old, new)
		}
	})
}

// consistent: each version named once and every stored version among them,
// as the API server requires of an installed CRD (an inconsistent one is
// compared with itself by its first entries and may lose a stored version).
func consistent(c *CRD) bool {
	seen := map[string]bool{}
	for _, v := range c.Versions {
		if seen[v.Name] {
			return false
		}
		seen[v.Name] = true
	}
	for _, s := range c.StoredVersions {
		if !seen[s] {
			return false
		}
	}
	return true
}
