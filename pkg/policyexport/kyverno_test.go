package policyexport_test

import (
	"context"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/policyexport"
)

// TestKyvernoCount: every attestor set carries count, the images entry's
// threshold (1 by default): Kyverno reads a missing count as "every entry
// must match", which would demand all the keys of a threshold-1 entry.
func TestKyvernoCount(t *testing.T) {
	for _, name := range []string{"images.yaml", "images-count.yaml", "images-keyless-open.yaml"} {
		t.Run(name, func(t *testing.T) {
			p, o := load(t, name)
			o.For, o.Lossy = "kyverno", true
			res, err := policyexport.Export(context.Background(), p, o)
			if err != nil {
				t.Fatal(err)
			}
			var cp struct {
				Spec struct {
					Rules []struct {
						VerifyImages []struct {
							Attestors []struct {
								Count   *int
								Entries []any
							}
						} `json:"verifyImages"`
					}
				}
			}
			if err := yaml.Unmarshal(res.Files[0].Data, &cp); err != nil {
				t.Fatal(err)
			}
			if len(cp.Spec.Rules) != len(p.Images) {
				t.Fatalf("%d rules for %d images entries", len(cp.Spec.Rules), len(p.Images))
			}
			for i, r := range cp.Spec.Rules {
				want := max(p.Images[i].Threshold, 1)
				for _, a := range r.VerifyImages[0].Attestors {
					if a.Count == nil || *a.Count != want {
						t.Errorf("rule %d (%s): count %v, want %d", i+1, p.Images[i].Glob, a.Count, want)
					}
				}
			}
		})
	}
}
