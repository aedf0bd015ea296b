package config

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/spec"
)

func TestConditions(t *testing.T) {
	for _, tc := range []struct {
		when    string
		enum    bool
		spec    any
		want    bool
		wantErr string
	}{
		{when: "a.b", spec: map[string]any{"a": map[string]any{"b": true}}, want: true},
		{when: "a.b", spec: map[string]any{"a": "x"}, want: false},
		{when: "a", spec: map[string]any{"a": "x"}, wantErr: "not a boolean"},
		{when: "p in [aws, eks]", enum: true, spec: map[string]any{"p": "eks"}, want: true},
		{when: " p  in [aws,eks] ", enum: true, spec: map[string]any{"p": "gcp"}, want: false},
		{when: "p in [aws]", enum: true, spec: map[string]any{}, want: false},
		{when: "p in [aws]", enum: true, spec: map[string]any{"p": nil}, want: false},
		{when: "p in [aws]", enum: true, spec: map[string]any{"p": 3}, wantErr: "is 3, not a string"},
		{when: "p in [aws]", wantErr: "need apiVersion addonpack.dev/v1alpha2"},
		{when: "p in [aws, aws]", enum: true, wantErr: "listed twice"},
		{when: "p in []", enum: true, wantErr: "value"},
		{when: "p == aws", enum: true, wantErr: "want a field"},
	} {
		c, err := parseCondition(tc.when, tc.enum)
		if err == nil {
			var got bool
			got, err = c.holds(tc.spec)
			if err == nil && got != tc.want {
				t.Errorf("%q on %v: got %v", tc.when, tc.spec, got)
			}
		}
		if (tc.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%q: error %v, want %q", tc.when, err, tc.wantErr)
		}
	}
}

func TestKubeRanges(t *testing.T) {
	for _, bad := range []string{"~1.29", "^1.29.0", "1.29.x", "1.28 - 1.30", ">=1.29"} {
		if _, err := parseKubeRange(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	r, err := parseKubeRange(">=1.29.0-0, <1.30.0 || =1.31.2")
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]bool{"1.28.9": false, "1.29.0": true, "1.29.7": true, "1.30.0": false, "1.31.2": true} {
		if got := r.matches(semver.MustParse(v)); got != want {
			t.Errorf("%s: %v", v, got)
		}
	}
	allowed, _ := semver.ParseRange(">=1.28.0-0")
	var got []string
	for _, p := range kubePoints([]kubeRange{r}, &allowed) {
		got = append(got, p.String())
	}
	if strings.Join(got, " ") != "1.28.0 1.29.0 1.29.1 1.30.0 1.30.1 1.31.2 1.31.3" {
		t.Errorf("points: %v", got)
	}
	for in, want := range map[string]string{"v1.29.3-eks-4b2c1": "1.29.3", "1.30.0": "1.30.0"} {
		if v, err := ParseKubeVersion(in); err != nil || v.String() != want {
			t.Errorf("%s: %v %v", in, v, err)
		}
	}
	if _, err := ParseKubeVersion("1.30"); !errors.Is(err, ErrKubeVersion) {
		t.Errorf("1.30: %v", err)
	}
}

const profileSchema = `type: object
properties:
  provider: {type: string, enum: [aws, gcp, azure], default: aws}
  expander: {type: string, default: random}
  metrics: {type: boolean, default: false}
`

func profileType(t *testing.T, apiVersion string, comps []spec.Component, overlays []spec.Overlay, files fstest.MapFS) (*Type, error) {
	t.Helper()
	if files == nil {
		files = fstest.MapFS{}
	}
	files["schema.yaml"] = &fstest.MapFile{Data: []byte(profileSchema)}
	a := &spec.Addon{APIVersion: apiVersion, Metadata: spec.Metadata{Name: "x"}}
	a.Spec.Kubernetes = ">=1.29.0-0"
	a.Spec.Config = &spec.Config{APIVersion: "x.example.com/v1", Kind: "X", Schema: "schema.yaml", Components: comps, Overlays: overlays}
	return Load(context.Background(), files, a, schema.DefaultLimits(), nil)
}

func TestProfiles(t *testing.T) {
	const v2 = "addonpack.dev/v1alpha2"
	overlay := fstest.MapFS{"aws.yaml": &fstest.MapFile{Data: []byte("apiVersion: x.example.com/v1\nkind: X\nspec: {expander: least-waste}\n")}}
	typ, err := profileType(t, v2, []spec.Component{
		{Path: "c/aws", When: "provider in [aws]"},
		{Path: "c/old", Kubernetes: "<1.30.0"},
		{Path: "c/metrics", When: "metrics", Kubernetes: ">=1.30.0"},
	}, []spec.Overlay{{When: "provider in [aws]", Defaults: "aws.yaml"}}, overlay)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := typ.Profiles()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	if strings.Join(names, " ") != "provider-aws_kubernetes-1.29.0 provider-aws_kubernetes-1.30.0 provider-gcp_kubernetes-1.29.0 provider-gcp_kubernetes-1.30.0 provider-azure_kubernetes-1.29.0 provider-azure_kubernetes-1.30.0" {
		t.Fatalf("profiles: %v", names)
	}
	if _, err := typ.Resolve(nil, ""); !errors.Is(err, ErrKubeVersion) {
		t.Fatalf("no Kubernetes version: %v", err)
	}
	r, err := typ.ResolveWith(ps[0].Object(typ), "p", Options{KubeVersion: ps[0].KubeVersion})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Components, " "); got != "c/aws c/old" || r.Spec.(map[string]any)["expander"] != "least-waste" {
		t.Fatalf("aws on 1.29: %v %v", got, r.Spec)
	}
	all, err := typ.AllOn(r.Spec, Options{KubeVersion: semver.MustParse("1.30.0")})
	if err != nil || strings.Join(all, " ") != "c/aws c/metrics" {
		t.Fatalf("all on, 1.30: %v %v", all, err)
	}
	// The user's values choose the overlay, and still win over it.
	r, err = typ.ResolveWith([]byte("apiVersion: x.example.com/v1\nkind: X\nspec: {provider: gcp}\n"), "v", Options{KubeVersion: semver.MustParse("1.31.0")})
	if err != nil || r.Spec.(map[string]any)["expander"] != "random" || len(r.Components) != 0 {
		t.Fatalf("gcp: %v %v %v", r.Spec, r.Components, err)
	}
	r, err = typ.ResolveWith([]byte("apiVersion: x.example.com/v1\nkind: X\nspec: {expander: priority}\n"), "v", Options{KubeVersion: semver.MustParse("1.31.0")})
	if err != nil || r.Spec.(map[string]any)["expander"] != "priority" {
		t.Fatalf("user over overlay: %v %v", r.Spec, err)
	}
}

func TestProfilesRefused(t *testing.T) {
	const v2 = "addonpack.dev/v1alpha2"
	setsKey := fstest.MapFS{"o.yaml": &fstest.MapFile{Data: []byte("apiVersion: x.example.com/v1\nkind: X\nspec: {provider: gcp}\n")}}
	for _, tc := range []struct {
		name, apiVersion string
		comps            []spec.Component
		overlays         []spec.Overlay
		files            fstest.MapFS
		want             string
	}{
		{"enum in v1alpha1", spec.APIVersion, []spec.Component{{Path: "c", When: "provider in [aws]"}}, nil, nil, "v1alpha2"},
		{"kubernetes in v1alpha1", spec.APIVersion, []spec.Component{{Path: "c", When: "metrics", Kubernetes: ">=1.29.0"}}, nil, nil, "v1alpha2"},
		{"overlay in v1alpha1", spec.APIVersion, nil, []spec.Overlay{{When: "provider in [aws]", Defaults: "o.yaml"}}, setsKey, "v1alpha2"},
		{"not in the enum", v2, []spec.Component{{Path: "c", When: "provider in [ibm]"}}, nil, nil, `"ibm" is not a value of the enum`},
		{"not an enum", v2, []spec.Component{{Path: "c", When: "expander in [random]"}}, nil, nil, "has no enum"},
		{"neither", v2, []spec.Component{{Path: "c"}}, nil, nil, "needs when, kubernetes or both"},
		{"bad range", v2, []spec.Component{{Path: "c", Kubernetes: "~1.29"}}, nil, nil, "comparisons of full versions"},
		{"overlay sets its key", v2, nil, []spec.Overlay{{When: "provider in [aws]", Defaults: "o.yaml"}}, setsKey, "sets provider"},
	} {
		if _, err := profileType(t, tc.apiVersion, tc.comps, tc.overlays, tc.files); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// Over the bound: 3 providers × 11 versions.
	var comps []spec.Component
	for i := 29; i < 40; i++ {
		comps = append(comps, spec.Component{Path: "c" + string(rune('a'+i-29)), Kubernetes: ">=1." + strconv.Itoa(i) + ".0"})
	}
	comps = append(comps, spec.Component{Path: "p", When: "provider in [aws]"})
	typ, err := profileType(t, v2, comps, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := typ.Profiles(); err == nil || !strings.Contains(err.Error(), "more than the 32") {
		t.Fatalf("bound: %v", err)
	}
}

// TestProfilesCountOverflow: 64 enum fields of two values make 2^64
// profiles, which an int product counts as 0; they are refused, not built.
func TestProfilesCountOverflow(t *testing.T) {
	typ := &Type{}
	for i := range 64 {
		typ.prof.enums = append(typ.prof.enums, enumField{path: "e" + strconv.Itoa(i), values: []string{"a", "b"}})
	}
	if _, err := typ.Profiles(); err == nil || !strings.Contains(err.Error(), "18446744073709551616 profiles") || !strings.Contains(err.Error(), "more than the 32") {
		t.Fatalf("got %v", err)
	}
}

// TestProfilesKubeChecksBounded: components whose ranges name thousands of
// distinct versions (what a hostile config blob, read unverified by
// inspect, may hold) are refused before the candidate versions are checked
// against every range, naming the field and the bound; an add-on within it
// is listed as before.
func TestProfilesKubeChecksBounded(t *testing.T) {
	ranged := func(components, alternatives int) *spec.Addon {
		a := &spec.Addon{APIVersion: "addonpack.dev/v1alpha2", Spec: spec.AddonSpec{Config: &spec.Config{APIVersion: "x.example.com/v1", Kind: "X", Schema: "s.json"}}}
		k := 0
		for i := range components {
			var alts []string
			for range alternatives {
				k++
				alts = append(alts, "=1."+strconv.Itoa(k/1000)+"."+strconv.Itoa(k%1000))
			}
			a.Spec.Config.Components = append(a.Spec.Config.Components, spec.Component{Path: "c" + strconv.Itoa(i), Kubernetes: strings.Join(alts, " || ")})
		}
		return a
	}
	var fe *spec.FieldError
	_, err := ProfilesOf(context.Background(), ranged(400, 12), []byte(`{"type":"object"}`), schema.DefaultLimits())
	if !errors.As(err, &fe) || fe.Field != "spec.config.components" ||
		!strings.Contains(err.Error(), "times 400 components with kubernetes make") || !strings.Contains(err.Error(), "range checks, more than the 16384 the builder makes") {
		t.Fatalf("got %v", err)
	}
	// 8 components of 2 versions each (1.0.1 to 1.0.16): 18 candidates,
	// 144 checks; one profile below them all, one per component.
	ps, err := ProfilesOf(context.Background(), ranged(8, 2), []byte(`{"type":"object"}`), schema.DefaultLimits())
	if err != nil || len(ps) != 9 || ps[0].KubeVersion.String() != "1.0.0" || ps[1].KubeVersion.String() != "1.0.1" || ps[8].KubeVersion.String() != "1.0.15" {
		t.Fatalf("got %d profiles, %v", len(ps), err)
	}
	// Within the checks, over the profiles: the message names only the
	// factors there are (no enum fields here).
	if _, err := ProfilesOf(context.Background(), ranged(40, 1), []byte(`{"type":"object"}`), schema.DefaultLimits()); err == nil ||
		!strings.Contains(err.Error(), "spec.config: 41 profiles (41 Kubernetes versions), more than the 32") {
		t.Fatalf("41 intervals: %v", err)
	}
}

func FuzzCondition(f *testing.F) {
	for _, s := range []string{"a.b", "p in [aws, eks]", " p in [a] ", "p in []", "x in [a,,b]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseCondition(s, true)
		if err != nil {
			return
		}
		if !boolWhen.MatchString(c.field()) {
			t.Fatalf("%q: path %q", s, c.field())
		}
		spec := map[string]any{"p": "aws", "a": map[string]any{"b": true}}
		a, errA := c.holds(spec)
		b, errB := c.holds(spec)
		if a != b || (errA == nil) != (errB == nil) {
			t.Fatalf("%q: not deterministic", s)
		}
		_, _ = parseKubeRange(s)
	})
}
