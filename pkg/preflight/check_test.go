package preflight

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/errdef"
)

const helloObjects = `apiVersion: v1
kind: Namespace
metadata:
  name: hello
---
apiVersion: v1
kind: Service
metadata:
  name: hello
  namespace: hello
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: hello
  namespace: hello
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
`

// widgetCRD is a CRD serving versions (v1 stored) with schema props.
func widgetCRD(versions string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
` + versions
}

const widgetV1 = `    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size: {type: integer}
                color: {type: string}
                parts:
                  type: array
                  items:
                    type: object
                    properties:
                      name: {type: string}
`

const aWidget = `
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  namespace: hello
`

// TestCheck runs each check on a fake cluster: every case states the
// findings it must produce (check and a telling part of the message), so a
// check that stops finding fails its case, and one that finds too much
// fails the passing cases.
func TestCheck(t *testing.T) {
	installed := func(t *testing.T, versions string, stored ...string) map[string]*CRD {
		t.Helper()
		objs, err := parseObjects([]byte(widgetCRD(versions)))
		if err != nil {
			t.Fatal(err)
		}
		c, err := ParseCRD(objs[0].raw)
		if err != nil {
			t.Fatal(err)
		}
		c.StoredVersions = stored
		return map[string]*CRD{c.Name: c}
	}
	cases := []struct {
		name    string
		addons  []Addon
		edit    func(t *testing.T, f *fakeCluster)
		want    []string // "check: part of the message"
		warn    []string
		reviews int // access reviews of the first add-on, when not 0
	}{
		{name: "passes", addons: []Addon{{Name: "hello", Kubernetes: ">=1.29.0, <1.36.0", Objects: []byte(helloObjects)}}, reviews: 8},
		{name: "kubernetes range excludes the server",
			addons: []Addon{{Name: "hello", Kubernetes: ">=1.35.0", Objects: []byte(helloObjects)}},
			want:   []string{"kubernetes: supports Kubernetes >=1.35.0; the cluster runs 1.34.4"}},
		{name: "a vendor suffix is compared by its release",
			addons: []Addon{{Name: "hello", Kubernetes: "<1.34.0", Objects: []byte(helloObjects)}},
			edit:   func(_ *testing.T, f *fakeCluster) { f.version = "v1.34.2-eks-4b2c1" },
			want:   []string{"kubernetes: the cluster runs 1.34.2"}},
		{name: "a kind not served",
			addons: []Addon{{Name: "hello", Objects: []byte(helloObjects + aWidget)}},
			want:   []string{"served: example.com/v1 Widget is not served"}},
		{name: "a kind an unavailable API serves is a warning",
			addons: []Addon{{Name: "hello", Objects: []byte(helloObjects + aWidget)}},
			edit:   func(_ *testing.T, f *fakeCluster) { f.unavailable = []string{"example.com/v1"} },
			warn:   []string{"served: the server could not list example.com/v1"}},
		{name: "a CRD of the same add-on serves its kind",
			addons: []Addon{{Name: "widgets", Objects: []byte(widgetCRD(widgetV1) + aWidget)}}},
		{name: "a CRD of an earlier add-on of the stack serves the kind",
			addons: []Addon{{Name: "widgets", Objects: []byte(widgetCRD(widgetV1))}, {Name: "user", Objects: []byte(strings.TrimPrefix(aWidget, "\n---\n"))}}},
		{name: "a CRD of a later add-on does not",
			addons: []Addon{{Name: "user", Objects: []byte(strings.TrimPrefix(aWidget, "\n---\n"))}, {Name: "widgets", Objects: []byte(widgetCRD(widgetV1))}},
			want:   []string{"served: example.com/v1 Widget is not served"}},
		{name: "a version the CRD does not serve",
			addons: []Addon{{Name: "widgets", Objects: []byte(widgetCRD(strings.Replace(widgetV1, "served: true", "served: false", 1)) + aWidget)}},
			want:   []string{"served: example.com/v1 Widget is not served"}},
		{name: "create denied in a namespace the add-on creates",
			addons: []Addon{{Name: "hello", Objects: []byte(helloObjects)}},
			edit: func(_ *testing.T, f *fakeCluster) {
				f.denied = []Access{{Verb: "create", Group: "apps", Resource: "deployments", Namespace: "hello", Name: "hello"}}
			},
			want: []string{`access: may not create deployments.apps "hello" in namespace hello: no RBAC rule`}},
		{name: "patch denied on a cluster-scoped object",
			addons: []Addon{{Name: "hello", Objects: []byte(helloObjects)}},
			edit: func(_ *testing.T, f *fakeCluster) {
				f.denied = []Access{{Verb: "patch", Resource: "namespaces", Name: "hello"}}
			},
			want: []string{`access: may not patch namespaces "hello" (cluster scope)`}},
		{name: "an object without a namespace goes to the context's",
			addons: []Addon{{Name: "hello", Objects: []byte(helloObjects)}},
			edit: func(_ *testing.T, f *fakeCluster) {
				f.denied = []Access{{Verb: "create", Resource: "configmaps", Namespace: "team-a", Name: "settings"}}
			},
			want: []string{`access: may not create configmaps "settings" in namespace team-a`}},
		{name: "an installed CRD keeps its versions and fields",
			addons: []Addon{{Name: "widgets", Objects: []byte(widgetCRD(widgetV1))}},
			edit:   func(t *testing.T, f *fakeCluster) { f.crds = installed(t, widgetV1, "v1") }},
		{name: "a served version removed",
			addons: []Addon{{Name: "widgets", Objects: []byte(widgetCRD(widgetV1))}},
			edit: func(t *testing.T, f *fakeCluster) {
				f.crds = installed(t, widgetV1+strings.ReplaceAll(strings.ReplaceAll(widgetV1, "name: v1", "name: v1beta1"), "storage: true", "storage: false"), "v1")
			},
			want: []string{"crd: the installed CRD serves v1beta1, the add-on's does not"}},
		{name: "a stored version dropped",
			addons: []Addon{{Name: "widgets", Objects: []byte(widgetCRD(widgetV1))}},
			edit: func(t *testing.T, f *fakeCluster) {
				f.crds = installed(t, widgetV1+strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(widgetV1, "name: v1", "name: v1alpha1"), "storage: true", "storage: false"), "served: true", "served: false"), "v1alpha1", "v1")
			},
			want: []string{"crd: status.storedVersions lists v1alpha1"}},
		{name: "fields dropped",
			addons: []Addon{{Name: "widgets", Objects: []byte(widgetCRD(strings.NewReplacer("                color: {type: string}\n", "", "                      name: {type: string}\n", "                      title: {type: string}\n").Replace(widgetV1)))}},
			edit:   func(t *testing.T, f *fakeCluster) { f.crds = installed(t, widgetV1, "v1") },
			want:   []string{"crd: version v1 drops fields of the installed schema: .spec.color, .spec.parts[].name"}},
		{name: "fields kept by preserve-unknown-fields",
			addons: []Addon{{Name: "widgets", Objects: []byte(widgetCRD(strings.NewReplacer(
				"                color: {type: string}\n", "",
				"            spec:\n              type: object\n", "            spec:\n              type: object\n              x-kubernetes-preserve-unknown-fields: true\n").Replace(widgetV1)))}},
			edit: func(t *testing.T, f *fakeCluster) { f.crds = installed(t, widgetV1, "v1") }},
		{name: "an installed CRD that may not be read",
			addons: []Addon{{Name: "widgets", Objects: []byte(widgetCRD(widgetV1))}},
			edit:   func(_ *testing.T, f *fakeCluster) { f.crdDenied = true },
			want:   []string{"crd: cannot read the installed CRD to compare it"}},
		{name: "a webhook whose backend is in the add-on",
			addons: []Addon{{Name: "hooks", Objects: []byte(helloObjects + `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: hello
webhooks:
  - name: a.example.com
    clientConfig:
      service: {namespace: hello, name: hello}
  - name: b.example.com
    clientConfig:
      service: {namespace: elsewhere, name: hello}
`)}},
			warn: []string{"webhook: admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration hello: calls Service hello/hello of this add-on"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake()
			if c.edit != nil {
				c.edit(t, f)
			}
			v, _ := f.ServerVersion(t.Context())
			rep, err := Check(context.Background(), f, v, c.addons, Options{Namespace: "team-a"})
			if err != nil {
				t.Fatal(err)
			}
			var got, warned []string
			for _, a := range rep.Addons {
				for _, x := range a.Findings {
					got = append(got, x.String())
				}
				for _, x := range a.Warnings {
					warned = append(warned, x.String())
				}
			}
			match(t, "findings", got, c.want)
			match(t, "warnings", warned, c.warn)
			if rep.Passed != (len(c.want) == 0) || (rep.Err() == nil) != rep.Passed {
				t.Errorf("passed %v, Err %v with findings %q", rep.Passed, rep.Err(), got)
			}
			if err := rep.Err(); err != nil && (!errors.Is(err, ErrFailed) || !errors.Is(err, errdef.ErrVerification)) {
				t.Errorf("Err %v: not ErrFailed in class ErrVerification", err)
			}
			if c.reviews != 0 && rep.Addons[0].Checked.AccessReviews != c.reviews {
				t.Errorf("%d access reviews, want %d: %v", rep.Addons[0].Checked.AccessReviews, c.reviews, f.asked)
			}
		})
	}
}

// match wants one finding per wanted text, each containing it.
func match(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s %q, want %d like %q", what, got, len(want), want)
		return
	}
	for _, w := range want {
		check, part, _ := strings.Cut(w, ": ")
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, check+": ") && strings.Contains(g, part) }) {
			t.Errorf("%s %q: none is %q", what, got, w)
		}
	}
}
