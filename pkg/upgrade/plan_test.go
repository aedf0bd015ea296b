package upgrade_test

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/internal/testartifact"
	"github.com/addonpack/addonpack/internal/testkey"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/stack"
	"github.com/addonpack/addonpack/pkg/upgrade"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/testregistry"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// greeters publishes the greeter pair on an embedded registry, signed:
// 0.1.0 (examples/greeter-v1), 0.1.1 (the same with another version, within
// the default 0.x policy of 0.1.0) and 0.2.0 (examples/greeter-v2, its
// config type moved on, outside it). It returns the registry, the plan's
// options and the published releases by version.
func greeters(t *testing.T) (*testregistry.Registry, upgrade.PlanOptions, map[string]testartifact.Published, *keys.Signer) {
	t.Helper()
	reg := testregistry.New(t)
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := testkey.New(t)
	pub := map[string]testartifact.Published{}
	for v, dir := range map[string]string{
		"0.1.0": testartifact.ExampleDir("greeter-v1"),
		"0.1.1": testartifact.Version(t, testartifact.ExampleDir("greeter-v1"), "0.1.1"),
		"0.2.0": testartifact.ExampleDir("greeter-v2"),
	} {
		ref := registry.Reference{Registry: reg.Host(), Repository: "addons/greeter", Tag: v}
		pub[v] = testartifact.Signed(t, c, dir, ref, s, sign.FormatClassic)
	}
	pol := testartifact.Policy(t, verify.KeyOptions{}, s)
	return reg, upgrade.PlanOptions{Tags: c, Fetch: consume.New(consume.Options{Client: c, Policy: pol})}, pub, s
}

func values(t *testing.T, body string) []byte {
	t.Helper()
	return []byte("apiVersion: greeter.addons.example.com/v1alpha1\nkind: GreeterConfig\nspec:\n" + body)
}

func TestPlanRef(t *testing.T) {
	reg, opts, pub, _ := greeters(t)
	ref := pub["0.1.0"].Ref

	t.Run("values that convert", func(t *testing.T) {
		reg.ResetLog()
		p, err := upgrade.PlanRef(t.Context(), opts, ref, values(t, "  message: hi\n  replicas: 3\n"), "my-greeter.yaml")
		if err != nil {
			t.Fatal(err)
		}
		a := p.Addons[0]
		if a.Version != "0.1.0" || a.NewestWithinPolicy != "0.1.1" || a.Newest != "0.2.0" || len(a.Candidates) != 2 {
			t.Fatalf("plan %+v", a)
		}
		within, outside := a.Candidates[0], a.Candidates[1]
		if !within.WithinPolicy || len(within.Breaks) > 0 || len(within.Conversion) != 0 || within.Digest != pub["0.1.1"].Desc.Digest {
			t.Errorf("0.1.1: %+v", within)
		}
		if outside.WithinPolicy || len(outside.Breaks) > 0 || len(outside.Conversion) != 1 ||
			strings.Join(outside.Conversion[0].Rules, ";") != "move message → greeting.text" || outside.ConfigVersion != "greeter.addons.example.com/v1beta1" {
			t.Errorf("0.2.0: %+v", outside)
		}
		if r := outside.CheckUpgrade; r == nil || len(r.Changes) == 0 || !strings.Contains(r.Changes[0].CoveredBy+r.Changes[1].CoveredBy, "rule move message → greeting.text") {
			t.Errorf("check-upgrade: %+v", r)
		}
		err = p.Err()
		if !errors.Is(err, upgrade.ErrUpgradable) || !errors.Is(err, stack.ErrDrift) || errors.Is(err, upgrade.ErrValuesBreak) {
			t.Errorf("verdict %v: want ErrUpgradable (exit 10)", err)
		}
		// Manifests and config blobs only: no content layer is fetched.
		// The count is pinned: one tag list, and per release (0.1.0 and both
		// candidates) 6: the manifest by tag, the .sig and .att tags and the
		// referrers (verification), the attestation's envelope (the
		// signature's payload is the plain claim, built, not fetched), the
		// config blob.
		layers := map[string]bool{}
		for _, pb := range pub {
			layers[pb.Build.Layers[0].Digest.String()] = true
		}
		var log []string
		for _, r := range reg.Log() {
			log = append(log, r.Method+" "+r.Path)
			for l := range layers {
				if strings.Contains(r.Path, l) {
					t.Errorf("the content layer was fetched: %s %s", r.Method, r.Path)
				}
			}
		}
		if n := len(log); n != planRequests {
			t.Errorf("%d requests, pinned %d:\n%s", n, planRequests, strings.Join(log, "\n"))
		}
		golden(t, "plan.json", reg.Host(), p)
	})

	t.Run("values that hit a fail rule", func(t *testing.T) {
		p, err := upgrade.PlanRef(t.Context(), opts, ref, values(t, "  message: hi\n  replicas: 7\n"), "my-greeter.yaml")
		if err != nil {
			t.Fatal(err)
		}
		c := p.Addons[0].Candidates[1]
		if len(c.Breaks) != 1 || c.Breaks[0].Field != "spec.replicas" || c.Breaks[0].Rule != "fail if has(spec.replicas) && spec.replicas > 5" ||
			!strings.HasPrefix(c.Breaks[0].Message, "spec.replicas above 5 is no longer supported") {
			t.Fatalf("breaks %+v", c.Breaks)
		}
		if len(p.Addons[0].Candidates[0].Breaks) != 0 {
			t.Errorf("0.1.1 breaks: %+v", p.Addons[0].Candidates[0].Breaks)
		}
		err = p.Err()
		if !errors.Is(err, upgrade.ErrValuesBreak) || errdef.ClassOf(err) != errdef.ErrInvalid || errors.Is(err, stack.ErrDrift) ||
			!strings.Contains(err.Error(), "greeter 0.2.0: spec.replicas: spec.replicas above 5") {
			t.Errorf("verdict %v: want ErrValuesBreak (exit 3) naming field and rule", err)
		}
	})

	t.Run("values the schema refuses", func(t *testing.T) {
		p, err := upgrade.PlanRef(t.Context(), opts, ref, values(t, "  message: \"\"\n  colour: blue\n"), "my-greeter.yaml")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range p.Addons[0].Candidates {
			for _, b := range c.Breaks {
				got = append(got, c.Version+" "+b.String())
			}
		}
		if len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), "spec.colour") {
			t.Fatalf("breaks %q", got)
		}
	})

	t.Run("nothing to do", func(t *testing.T) {
		p, err := upgrade.PlanRef(t.Context(), opts, pub["0.2.0"].Ref, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Addons[0].Candidates) != 0 || p.Err() != nil {
			t.Fatalf("plan %+v, verdict %v", p.Addons[0], p.Err())
		}
	})
}

// planRequests is the registry requests of one plan of greeter 0.1.0 with
// two candidates (TestPlanRef).
const planRequests = 1 + 3*6

// golden compares the plan's JSON, the registry's host written REGISTRY,
// with testdata/name, rewriting it with -update.
func golden(t *testing.T, name, host string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(string(b), host, "REGISTRY") + "\n"
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestPlanStack(t *testing.T) {
	reg, opts, pub, _ := greeters(t)
	c := pub["0.1.0"].Client
	loader := stack.Remote{Tags: c, Loader: opts.Fetch.(*consume.Consumer)}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "greeter.yaml"), values(t, "  message: hi\n  replicas: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "addons.yaml")
	writeStack := func(policy string) *stack.Stack {
		body := "apiVersion: addonpack.dev/v1alpha2\nkind: Stack\n" + policy + "addons:\n  - repository: " + reg.Host() + "/addons/greeter\n    version: '>=0.1.0'\n    values: greeter.yaml\n"
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		st, err := stack.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	// Locked at the lowest, 0.1.0.
	if _, err := stack.WriteLock(t.Context(), loader, writeStack(""), stack.Options{Lowest: true}); err != nil {
		t.Fatal(err)
	}

	p, err := upgrade.PlanStack(t.Context(), opts, file)
	if err != nil {
		t.Fatal(err)
	}
	a := p.Addons[0]
	if a.Version != "0.1.0" || a.Values != filepath.Join(dir, "greeter.yaml") || len(a.Candidates) != 2 || !a.Candidates[0].WithinPolicy || a.Candidates[1].WithinPolicy {
		t.Fatalf("default policy: %+v", a)
	}
	if err := p.Err(); !errors.Is(err, upgrade.ErrValuesBreak) || !strings.Contains(err.Error(), "greeter 0.2.0: spec.replicas:") {
		t.Fatalf("the values break 0.2.0: %v", err)
	}

	// upgrade: minor puts 0.2.0 within the policy: one candidate.
	writeStack("upgrade: minor\n")
	if p, err = upgrade.PlanStack(t.Context(), opts, file); err != nil {
		t.Fatal(err)
	}
	if a := p.Addons[0]; len(a.Candidates) != 1 || a.Candidates[0].Version != "0.2.0" || !a.Candidates[0].WithinPolicy || a.NewestWithinPolicy != "0.2.0" {
		t.Fatalf("minor: %+v", a)
	}

	// lock --update moves within the policy only.
	st := writeStack("")
	l, err := stack.UpdateLock(t.Context(), loader, st, nil, stack.Options{})
	if err != nil || l.Addons[0].Version != "0.1.1" {
		t.Fatalf("update under the default policy: %v %+v", err, l)
	}

	// An old release re-tagged as a newer version is refused by the
	// version binding, by the plan and by lock --update alike.
	testartifact.PushDir(t, c, testartifact.ExampleDir("greeter-v1"), registry.Reference{Registry: reg.Host(), Repository: "addons/greeter", Tag: "0.1.5"}, build.Options{})
	_, err = upgrade.PlanStack(t.Context(), opts, file)
	if errdef.ClassOf(err) != errdef.ErrVerification || !strings.Contains(err.Error(), "0.1.5") {
		t.Fatalf("plan over a re-tagged release: want a verification failure, got %v", err)
	}
	if _, err := stack.UpdateLock(t.Context(), loader, st, nil, stack.Options{}); errdef.ClassOf(err) != errdef.ErrVerification {
		t.Fatalf("lock --update over a re-tagged release: want a verification failure, got %v", err)
	}
}
