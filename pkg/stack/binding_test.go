package stack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/spec"
)

// fakeConsumer hands out, by digest, what the verified config blob of each
// artifact of a fakeRegistry says: it stands for the consumer path, which
// verifies the digest and binds the name the lock gives (here: nothing is
// refused, so that the lock's own binding is what is tested).
type fakeConsumer struct {
	f      *fakeRegistry
	opened int
}

func (c *fakeConsumer) addon(ref registry.Reference) (*spec.Addon, error) {
	c.opened++
	for _, tags := range c.f.repos {
		for _, a := range tags {
			if a.Digest == ref.Digest {
				return &spec.Addon{Metadata: spec.Metadata{Name: a.Name}, Spec: spec.AddonSpec{Version: a.Version.String(), Dependencies: a.Dependencies}}, nil
			}
		}
	}
	return nil, fmt.Errorf("%s: %w", ref, registry.ErrNotFound)
}

func (c *fakeConsumer) Open(_ context.Context, ref registry.Reference, _ string) (*deliver.Package, error) {
	a, err := c.addon(ref)
	if err != nil {
		return nil, err
	}
	files := fstest.MapFS{
		"kustomization.yaml": {Data: []byte("resources: [cm.yaml]\n")},
		"cm.yaml":            {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + a.Metadata.Name + "\n")},
	}
	return &deliver.Package{Name: ref.String(), Addon: a, Files: files}, nil
}

func (c *fakeConsumer) Load(_ context.Context, ref registry.Reference, _ string) (*artifact.Loaded, error) {
	a, err := c.addon(ref)
	if err != nil {
		return nil, err
	}
	return &artifact.Loaded{Addon: a}, nil
}

func (c *fakeConsumer) Pull(_ context.Context, ref registry.Reference, _, dir string) (*artifact.Loaded, error) {
	l, err := c.Load(context.Background(), ref, "")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return l, os.WriteFile(filepath.Join(dir, "addon.yaml"), []byte(l.Addon.Metadata.Name+" "+l.Addon.Spec.Version+"\n"), 0o644)
}

func (c *fakeConsumer) GitOps(ctx context.Context, ref registry.Reference, name string, _ []byte, _, tool string, g deliver.GitOps) ([]byte, *artifact.Loaded, error) {
	l, err := c.Load(ctx, ref, name)
	if err != nil {
		return nil, nil, err
	}
	g.Ref, g.Addon = ref, l.Addon
	b, err := deliver.For(tool, g)
	return b, l, err
}

// consumers runs every reader of a locked stack that verifies its add-ons,
// each into a fresh target, and returns their errors and the targets.
func consumers(t *testing.T, c *fakeConsumer, steps []Step) (map[string]error, []string) {
	dir := t.TempDir()
	pulled, kustomized := filepath.Join(dir, "pulled"), filepath.Join(dir, "kustomize")
	_, renderErr := Render(t.Context(), c, steps)
	_, fluxErr := GitOps(t.Context(), c, steps, "flux", deliver.GitOps{})
	return map[string]error{
		"Render":         renderErr,
		"GitOps":         fluxErr,
		"WriteKustomize": WriteKustomize(t.Context(), c, steps, kustomized, false),
		"Pull":           Pull(t.Context(), c, steps, pulled, false),
	}, []string{pulled, kustomized}
}

// TestBindingRefusals: a lock consistent in itself and with its stack file,
// but not with the signed add-ons it names, is refused by every consumer
// that verifies them — Render, GitOps, WriteKustomize and Pull — as
// ErrLock (exit 3), naming the entry, and nothing is written.
func TestBindingRefusals(t *testing.T) {
	f := certFixture()
	// signed holds more than resolution saw: a build of equal precedence
	// (which would have made 1.14.0 ambiguous) and an add-on nobody needs.
	signed := certFixture()
	signed.add("cert-manager", "1.14.0_aws")
	signed.add("evil", "1.0.0")
	digestOf := func(repo, tag string) digest.Digest { return signed.repos["registry.example/addons/"+repo][tag].Digest }
	tests := []struct {
		name string
		edit func(l *Lock)
		msg  string
		// check is what CheckLock (lock --check) given trust says: a
		// swapped digest is first a locked tag that points elsewhere.
		check string
	}{
		{"a dependency's digest swapped to an older signed release, version and tag kept", func(l *Lock) {
			entry(l, "cert-manager").Digest = digestOf("cert-manager", "1.13.0")
		}, "cert-manager: invalid lock: locked as cert-manager 1.14.0, but the signed add-on at registry.example/addons/cert-manager@" + digestOf("cert-manager", "1.13.0").String() + " is cert-manager 1.13.0",
			"cert-manager: tag 1.14.0 now " + digestOf("cert-manager", "1.14.0").String() + ", locked " + digestOf("cert-manager", "1.13.0").String()},
		{"a dependency's digest swapped to a build of equal precedence", func(l *Lock) {
			entry(l, "cert-manager").Digest = digestOf("cert-manager", "1.14.0_aws")
		}, "cert-manager: invalid lock: locked as cert-manager 1.14.0, but the signed add-on at registry.example/addons/cert-manager@sha256:",
			"cert-manager: tag 1.14.0 now " + digestOf("cert-manager", "1.14.0").String()},
		{"a root's digest swapped to another add-on signed by the same key", func(l *Lock) {
			entry(l, "webhook").Digest = digestOf("cert-operator", "0.2.0")
		}, "webhook: invalid lock: locked as webhook 0.3.0, but the signed add-on at registry.example/addons/webhook@" + digestOf("cert-operator", "0.2.0").String() + " is cert-operator 0.2.0",
			"webhook: tag 0.3.0 now " + digestOf("webhook", "0.3.0").String() + ", locked " + digestOf("cert-operator", "0.2.0").String()},
		{"a middle add-on's digest swapped to its older release", func(l *Lock) {
			entry(l, "cert-operator").Digest = digestOf("cert-operator", "0.1.0")
		}, "cert-operator: invalid lock: locked as cert-operator 0.2.0, but the signed add-on",
			"cert-operator: tag 0.2.0 now "},
		{"an extra entry smuggled in as another add-on's dependency", func(l *Lock) {
			l.Addons = append(l.Addons, LockedAddon{Name: "evil", Repository: "registry.example/addons/evil", Version: "1.0.0", Tag: "1.0.0",
				Digest: digestOf("evil", "1.0.0"), RequiredBy: []Requirement{{By: "cert-operator@0.2.0", Version: "*"}}})
		}, `evil: invalid lock: the lock says cert-operator@0.2.0 requires it ("*"), but cert-operator's signed config does not`,
			ErrLock.Error()},
		{"an extra entry smuggled in as the root's dependency", func(l *Lock) {
			l.Addons = append(l.Addons, LockedAddon{Name: "evil", Repository: "registry.example/addons/evil", Version: "1.0.0", Tag: "1.0.0",
				Digest: digestOf("evil", "1.0.0"), RequiredBy: []Requirement{{By: "webhook@0.3.0", Version: ">=1.0.0"}}})
		}, `evil: invalid lock: the lock says webhook@0.3.0 requires it (">=1.0.0"), but webhook's signed config does not`,
			ErrLock.Error()},
		{"a dependency moved to another repository", func(l *Lock) {
			entry(l, "cert-manager").Repository = "evil.example/addons/cert-manager"
		}, "invalid lock: its signed config requires cert-manager from registry.example/addons/cert-manager, but the lock has it from evil.example/addons/cert-manager",
			"cert-manager: tag 1.14.0 is gone"},
		{"a dependency dropped from the lock", func(l *Lock) {
			l.Addons = l.Addons[1:] // cert-manager
		}, `cert-operator: invalid lock: its signed config requires cert-manager (registry.example/addons/cert-manager, ">=1.14.0, <2.0.0"), which the lock does not hold`,
			ErrLock.Error()},
		{"a dependency's recorded range widened", func(l *Lock) {
			entry(l, "cert-manager").RequiredBy[0].Version = "*"
		}, `cert-operator: invalid lock: its signed config requires cert-manager ">=1.14.0, <2.0.0", which the lock does not record on cert-manager`,
			ErrLock.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, l := webhookLock(t, f)
			tt.edit(l)
			settle(t, l)
			steps, err := Steps(st, l)
			if err != nil {
				t.Fatalf("Steps: %v (the edit must pass every check that needs no signature)", err)
			}
			c := &fakeConsumer{f: signed}
			errs, targets := consumers(t, c, steps)
			for what, err := range errs {
				if !errors.Is(err, ErrLock) || errors.Is(err, ErrDrift) || !strings.Contains(err.Error(), tt.msg) {
					t.Errorf("%s: %v\nwant ErrLock saying %q", what, err, tt.msg)
				}
			}
			for _, dir := range targets {
				if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s was written: %v", dir, err)
				}
			}
			if entries, _ := os.ReadDir(filepath.Dir(targets[0])); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
			// lock --check given trust: drift where a tag shows the swap,
			// else the binding's refusal.
			if err := l.Write(LockPath(st.Path)); err != nil {
				t.Fatal(err)
			}
			_, err = CheckLock(t.Context(), signed, st, c)
			if err == nil || !strings.Contains(err.Error(), tt.check) || !strings.Contains(err.Error(), LockPath(st.Path)) ||
				errors.Is(err, ErrDrift) == (tt.check == ErrLock.Error()) {
				t.Errorf("CheckLock: %v\nwant %q", err, tt.check)
			}
			if tt.check == ErrLock.Error() && !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("CheckLock: %v\nwant %q", err, tt.msg)
			}
			// Bounded: no consumer opens an add-on more than once.
			if c.opened > 5*len(steps) {
				t.Errorf("%d opens for %d steps", c.opened, len(steps))
			}
		})
	}
}

// TestBindingAccepts: the lock resolution wrote, and the same lock
// relocated (every add-on at DST/NAME while the signed dependencies still
// name their original repositories), pass every consumer.
func TestBindingAccepts(t *testing.T) {
	f := certFixture()
	st, l := webhookLock(t, f)
	prefix, err := registry.ParseReference("mirror.example/airgap")
	if err != nil {
		t.Fatal(err)
	}
	rst, rl, err := Relocated(st, l, prefix)
	if err != nil {
		t.Fatal(err)
	}
	for name, sl := range map[string]struct {
		st *Stack
		l  *Lock
	}{"resolved": {st, l}, "relocated": {rst, rl}} {
		steps, err := Steps(sl.st, sl.l)
		if err != nil {
			t.Fatalf("%s: Steps: %v", name, err)
		}
		errs, targets := consumers(t, &fakeConsumer{f: f}, steps)
		for what, err := range errs {
			if err != nil {
				t.Errorf("%s: %s: %v", name, what, err)
			}
		}
		if got, err := os.ReadFile(filepath.Join(targets[0], "cert-manager", "addon.yaml")); err != nil || string(got) != "cert-manager 1.14.0\n" {
			t.Errorf("%s: pulled cert-manager: %q, %v", name, got, err)
		}
	}

	// Relocated, a dependency outside DST is still where its parent says,
	// or refused.
	entry(rl, "cert-manager").Repository = "evil.example/airgap/cert-manager"
	steps, err := Steps(rst, rl)
	if err != nil {
		t.Fatal(err)
	}
	errs, _ := consumers(t, &fakeConsumer{f: f}, steps)
	for what, err := range errs {
		if !errors.Is(err, ErrLock) || !strings.Contains(err.Error(), "but the lock has it from evil.example/airgap/cert-manager") {
			t.Errorf("relocated, cert-manager moved: %s: %v", what, err)
		}
	}
}
