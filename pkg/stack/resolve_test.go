package stack

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestResolveGoldenLock(t *testing.T) {
	st := writeStack(t, `addons:
  - repository: registry.example/addons/cert-operator
    version: ">=0.1.0, <1.0.0"
    values: cert-operator.yaml
`)
	f := certFixture()
	l, err := Resolve(t.Context(), f, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "operator.lock", b)
	// The same registry state gives the same bytes.
	again, err := Resolve(t.Context(), certFixture(), st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b2, _ := again.Marshal(); string(b2) != string(b) {
		t.Fatalf("second resolution differs:\n%s", b2)
	}
}

func TestResolveChoices(t *testing.T) {
	tests := []struct {
		name  string
		stack string
		opts  Options
		want  string // NAME@VERSION in install order
	}{{
		name:  "highest satisfying every range",
		stack: "  - repository: registry.example/addons/webhook\n    version: '*'\n",
		want:  "cert-manager@1.14.0 cert-operator@0.2.0 webhook@0.3.0",
	}, {
		name:  "prefer lowest",
		stack: "  - repository: registry.example/addons/cert-operator\n    version: '>=0.1.0'\n",
		opts:  Options{Lowest: true},
		want:  "cert-manager@1.13.0 cert-operator@0.1.0",
	}, {
		name:  "a root narrows a dependency",
		stack: "  - repository: registry.example/addons/cert-operator\n    version: '*'\n  - repository: registry.example/addons/cert-manager\n    version: '~1.14'\n",
		want:  "cert-manager@1.14.0 cert-operator@0.2.0",
	}, {
		name:  "a pre-release only where every range names it",
		stack: "  - repository: registry.example/addons/cert-manager\n    version: '>=1.15.0-rc.0, <1.15.1'\n",
		want:  "cert-manager@1.15.0-rc.1",
	}, {
		name:  "a root pinned by digest",
		stack: fmt.Sprintf("  - repository: registry.example/addons/cert-operator\n    version: '*'\n  - repository: registry.example/addons/cert-manager\n    digest: %s\n", certFixture().repos["registry.example/addons/cert-manager"]["1.14.0"].Digest),
		want:  "cert-manager@1.14.0 cert-operator@0.2.0",
	}, {
		name:  "keep a locked tag",
		stack: "  - repository: registry.example/addons/cert-operator\n    version: '*'\n",
		opts:  Options{Keep: map[string]string{"registry.example/addons/cert-manager": "1.14.0"}},
		want:  "cert-manager@1.14.0 cert-operator@0.2.0",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Resolve(t.Context(), certFixture(), writeStack(t, "addons:\n"+tt.stack), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, name := range l.Order {
				for _, a := range l.Addons {
					if a.Name == name {
						got = append(got, a.Name+"@"+a.Version)
					}
				}
			}
			if strings.Join(got, " ") != tt.want {
				t.Fatalf("order = %v, want %s", got, tt.want)
			}
		})
	}
}

// TestResolveSettles: the chosen version of a dependency depends on the
// version chosen for its parent, which depends on another root.
func TestResolveSettles(t *testing.T) {
	f := certFixture()
	f.add("app", "1.0.0", "cert-operator >=0.2.0")
	f.add("app", "2.0.0", "cert-operator <0.2.0")
	l, err := Resolve(t.Context(), f, writeStack(t, "addons:\n  - repository: registry.example/addons/app\n    version: '*'\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range l.Addons {
		got[a.Name] = a.Version
	}
	if got["app"] != "2.0.0" || got["cert-operator"] != "0.1.0" || got["cert-manager"] != "1.15.3" {
		t.Fatalf("resolved %v", got)
	}
}

func TestResolveRefusals(t *testing.T) {
	f := certFixture()
	f.add("a", "1.0.0", "b *")
	f.add("b", "1.0.0", "c *")
	f.add("c", "1.0.0", "a *")
	f.add("twin", "1.0.0_aws")
	f.add("twin", "1.0.0_gcp")
	for i := range 40 { // a chain that never ends within the bounds
		f.add(fmt.Sprintf("deep%d", i), "1.0.0", fmt.Sprintf("deep%d *", i+1))
	}
	// A graph too wide: two add-ons of 40 dependencies each.
	for w := range 2 {
		var deps []string
		for i := range 40 {
			leaf := fmt.Sprintf("leaf%d", 40*w+i)
			f.add(leaf, "1.0.0")
			deps = append(deps, leaf+" *")
		}
		f.add(fmt.Sprintf("wide%d", w), "1.0.0", deps...)
	}
	tests := []struct {
		name, stack string
		keep        map[string]string
		msg         string
	}{{
		name:  "conflict",
		stack: "  - repository: registry.example/addons/webhook\n    version: '*'\n  - repository: registry.example/addons/cert-manager\n    version: '>=1.15.0'\n",
		msg:   `registry.example/addons/cert-manager: stack does not resolve: no version satisfies every range: stack requires ">=1.15.0"; stack → webhook 0.3.0 requires "<1.15.0" (available: 2.0.0, 2.0.0-alpha.1, 1.15.3, 1.15.0-rc.1, 1.14.0, 1.13.0)`,
	}, {
		name:  "conflict through a chain",
		stack: "  - repository: registry.example/addons/webhook\n    version: '*'\n  - repository: registry.example/addons/cert-operator\n    version: '0.2.0'\n  - repository: registry.example/addons/cert-manager\n    version: '<1.14.0'\n",
		msg:   `registry.example/addons/cert-manager: stack does not resolve: no version satisfies every range: stack requires "<1.14.0"; stack → cert-operator 0.2.0 requires ">=1.14.0, <2.0.0"; stack → webhook 0.3.0 requires "<1.15.0"`,
	}, {
		name:  "cycle",
		stack: "  - repository: registry.example/addons/a\n    version: '*'\n",
		msg:   "stack does not resolve: dependency cycle: a → b → c → a",
	}, {
		name:  "equal precedence",
		stack: "  - repository: registry.example/addons/twin\n    version: '*'\n",
		msg:   "registry.example/addons/twin: stack does not resolve: tags 1.0.0_aws, 1.0.0_gcp have equal precedence",
	}, {
		name:  "a graph beyond the bounds",
		stack: "  - repository: registry.example/addons/deep0\n    version: '*'\n",
		msg:   "registry.example/addons/deep17: stack does not resolve: more than 16 dependencies deep: stack → deep0 1.0.0 → deep1 1.0.0 → deep2 1.0.0",
	}, {
		name:  "a graph too wide",
		stack: "  - repository: registry.example/addons/wide0\n    version: '*'\n  - repository: registry.example/addons/wide1\n    version: '*'\n",
		msg:   "stack does not resolve: more than 64 add-ons",
	}, {
		name:  "a kept tag that no longer fits",
		stack: "  - repository: registry.example/addons/cert-operator\n    version: '0.2.0'\n",
		keep:  map[string]string{"registry.example/addons/cert-manager": "1.13.0"},
		msg:   `registry.example/addons/cert-manager: stack does not resolve: no version satisfies every range: stack → cert-operator 0.2.0 requires ">=1.14.0, <2.0.0" (kept at 1.13.0; available: `,
	}, {
		name:  "a name the registry does not hold",
		stack: "  - repository: registry.example/addons/cert-manager\n    name: other\n    version: '*'\n",
		msg:   "is cert-manager, not other",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Resolve(t.Context(), f, writeStack(t, "addons:\n"+tt.stack), Options{Keep: tt.keep})
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v\nwant %s", err, tt.msg)
			}
			if strings.Contains(tt.msg, "stack does not resolve") && !errors.Is(err, ErrResolve) {
				t.Fatalf("err does not wrap ErrResolve: %v", err)
			}
		})
	}
}
