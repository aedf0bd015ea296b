package mirror_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/mirror"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/verify"
)

// states returns "TAG=STATE" of every release of res, in order.
func states(res *mirror.Result) string {
	var out []string
	for _, r := range res.Releases {
		out = append(out, r.Tag+"="+r.State)
	}
	return strings.Join(out, " ")
}

// wantStates fails unless res's releases are want.
func wantStates(t *testing.T, res *mirror.Result, want string) {
	t.Helper()
	if res == nil {
		t.Fatalf("no result, want %s", want)
	}
	if got := states(res); got != want {
		t.Fatalf("states %q, want %q (%+v)", got, want, res.Releases)
	}
}

// verified fails unless ref's tag points at want and verifies under the
// world's key.
func (w *world) verified(t *testing.T, ref, want string) {
	t.Helper()
	if got := w.resolve(t, ref); got != want {
		t.Fatalf("%s points at %q, want %s", ref, got, want)
	}
	r, _ := registry.ParseReference(ref)
	d, _ := w.c.Resolve(t.Context(), r)
	pol, err := verify.PolicyFromKeys(t.Context(), []string{w.pub}, verify.KeyOptions{Provenance: verify.ProvenanceRules{Required: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.Verify(t.Context(), verify.Target{Client: w.c, Ref: r}, d, pol); err != nil {
		t.Fatalf("%s at the destination: %v", ref, err)
	}
}

// TestMirror runs a mirror file against both registries: a first run
// copies the selected releases, verified and tagged at the destination; a
// second run writes nothing (counted by a proxy and, for the embedded
// registry, in its own request log); --dry-run writes nothing; a moved
// upstream tag is drift (exit 10 class, both digests named, not
// overwritten) until --force; an unsigned release is refused and nothing of
// it is written.
func TestMirror(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			ctx := t.Context()
			upstream, _ := k.start(t)
			backend, embedded := k.start(t)
			dst := newDestination(t, backend, embedded)
			w := newWorld(t, upstream)
			var rel = map[string]string{}
			for _, v := range []string{"0.1.0", "0.2.0", "0.3.0"} {
				rel[v] = w.release(t, "addons/hello", v, true, "").Desc.Digest.String()
			}
			m := w.file(t, "mirror.yaml", "sources:\n  - repository: "+upstream+"/addons/hello\n    versions: \">=0.1.0\"\n    limit: 2\ndestination:\n  registry: "+dst.host+"/mirror\n")
			opts := mirror.Options{Client: w.c, Concurrency: 2}
			at := func(v string) string { return dst.host + "/mirror/addons/hello:" + v }

			// First run: the two newest, copied, verified, tagged.
			res, err := mirror.Run(ctx, m, opts)
			if err != nil {
				t.Fatal(err)
			}
			wantStates(t, res, "0.2.0=copied 0.3.0=copied")
			for _, v := range []string{"0.2.0", "0.3.0"} {
				w.verified(t, at(v), rel[v])
			}
			if w.resolve(t, at("0.1.0")) != "" {
				t.Fatal("0.1.0 is outside the limit but was mirrored")
			}
			if dst.writes.Load() == 0 || embedded != nil && dst.embeddedWrites() == 0 {
				t.Fatalf("the first run wrote nothing: proxy %d, log %d", dst.writes.Load(), dst.embeddedWrites())
			}

			// Second run: nothing copied, nothing written.
			before, beforeLog := dst.writes.Load(), dst.embeddedWrites()
			res, err = mirror.Run(ctx, m, opts)
			if err != nil {
				t.Fatal(err)
			}
			wantStates(t, res, "0.2.0=up-to-date 0.3.0=up-to-date")
			if got, gotLog := dst.writes.Load(), dst.embeddedWrites(); got != before || gotLog != beforeLog {
				t.Fatalf("the second run wrote: proxy %d -> %d, registry log %d -> %d", before, got, beforeLog, gotLog)
			}
			var text bytes.Buffer
			if err := res.WriteText(&text); err != nil || !strings.Contains(text.String(), "nothing to copy") {
				t.Fatalf("second run says %q (%v)", text.String(), err)
			}

			// A new upstream release, dry run: would copy, writes nothing.
			rel["0.4.0"] = w.release(t, "addons/hello", "0.4.0", true, "").Desc.Digest.String()
			dry := opts
			dry.DryRun = true
			res, err = mirror.Run(ctx, m, dry)
			if err != nil {
				t.Fatal(err)
			}
			wantStates(t, res, "0.3.0=up-to-date 0.4.0=would-copy")
			if got := dst.writes.Load(); got != before || w.resolve(t, at("0.4.0")) != "" {
				t.Fatalf("--dry-run wrote: %d -> %d writes", before, got)
			}

			// The upstream tag 0.3.0 moves to another build: drift, never
			// overwritten; 0.4.0 is copied meanwhile.
			moved := w.release(t, "addons/hello", "0.3.0", true, "rebuilt").Desc.Digest.String()
			if moved == rel["0.3.0"] {
				t.Fatal("the rebuild has the same digest")
			}
			res, err = mirror.Run(ctx, m, opts)
			if !errors.Is(err, mirror.ErrDrift) || !strings.Contains(err.Error(), moved) || !strings.Contains(err.Error(), rel["0.3.0"]) {
				t.Fatalf("moved tag: %v, want ErrDrift naming %s and %s", err, rel["0.3.0"], moved)
			}
			wantStates(t, res, "0.3.0=drift 0.4.0=copied")
			w.verified(t, at("0.3.0"), rel["0.3.0"])
			w.verified(t, at("0.4.0"), rel["0.4.0"])
			force := opts
			force.Force = true
			if res, err = mirror.Run(ctx, m, force); err != nil {
				t.Fatal(err)
			}
			wantStates(t, res, "0.3.0=copied 0.4.0=up-to-date")
			w.verified(t, at("0.3.0"), moved)

			// An unsigned upstream release: refused, nothing of it written.
			w.release(t, "unsigned/hello", "0.1.0", false, "")
			u := w.file(t, "unsigned.yaml", "sources:\n  - repository: "+upstream+"/unsigned/hello\n    versions: \"*\"\ndestination:\n  registry: "+dst.host+"/mirror\n")
			before = dst.writes.Load()
			res, err = mirror.Run(ctx, u, opts)
			if errdef.ClassOf(err) != errdef.ErrVerification {
				t.Fatalf("unsigned: %v, want a verification failure", err)
			}
			wantStates(t, res, "0.1.0=refused")
			if got := dst.writes.Load(); got != before || w.resolve(t, dst.host+"/mirror/unsigned/hello:0.1.0") != "" {
				t.Fatalf("an unsigned release was written: %d -> %d writes", before, got)
			}
		})
	}
}

// TestMirrorInterrupted: the destination fails every write after a few (a
// registry that goes away halfway); the run fails, and no tag points at a
// release that is incomplete or does not verify; a second run completes.
func TestMirrorInterrupted(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			ctx := t.Context()
			upstream, _ := k.start(t)
			backend, embedded := k.start(t)
			dst := newDestination(t, backend, embedded)
			w := newWorld(t, upstream)
			rel := map[string]string{}
			for _, v := range []string{"1.0.0", "1.1.0", "1.2.0"} {
				rel[v] = w.release(t, "addons/hello", v, true, "").Desc.Digest.String()
			}
			m := w.file(t, "mirror.yaml", "sources:\n  - repository: "+upstream+"/addons/hello\n    versions: \"1.x\"\ndestination:\n  registry: "+dst.host+"/m\n")
			for _, budget := range []int64{1, 7, 19} {
				dst.budget.Store(budget)
				if _, err := mirror.Run(ctx, m, mirror.Options{Client: w.c, Concurrency: 3}); err == nil {
					t.Fatalf("budget %d: the run succeeded", budget)
				}
				for v, d := range rel {
					ref := dst.host + "/m/addons/hello:" + v
					if got := w.resolve(t, ref); got != "" {
						w.verified(t, ref, d) // tagged: complete and verified
					}
				}
			}
			dst.budget.Store(-1)
			res, err := mirror.Run(ctx, m, mirror.Options{Client: w.c})
			if err != nil {
				t.Fatal(err)
			}
			if res.Summary.Copied+res.Summary.UpToDate != 3 || res.Summary.Copied == 0 {
				t.Fatalf("rerun: %+v", res.Summary)
			}
			for v, d := range rel {
				w.verified(t, dst.host+"/m/addons/hello:"+v, d)
			}
		})
	}
}

// TestMirrorTarball: into a tarball and out again. A second run into the
// same tarball writes nothing; copy --from-tarball (relocate.FromTarball)
// takes one release out by its NAME-TAG; mirror --from-tarball (Import)
// takes the selected ones out, verified at the destination, and a second
// import writes nothing.
func TestMirrorTarball(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			ctx := t.Context()
			upstream, _ := k.start(t)
			backend, embedded := k.start(t)
			dst := newDestination(t, backend, embedded)
			w := newWorld(t, upstream)
			rel := map[string]string{}
			for _, v := range []string{"0.1.0", "0.2.0"} {
				rel[v] = w.release(t, "addons/hello", v, true, "").Desc.Digest.String()
			}
			src := "sources:\n  - repository: " + upstream + "/addons/hello\n    versions: \"0.x\"\n"
			out := w.file(t, "out.yaml", src+"destination:\n  tarball: mirror.tar\n")
			tarball := filepath.Join(w.dir, "mirror.tar")
			res, err := mirror.Run(ctx, out, mirror.Options{Client: w.c})
			if err != nil {
				t.Fatal(err)
			}
			wantStates(t, res, "0.1.0=copied 0.2.0=copied")
			first, err := os.ReadFile(tarball)
			if err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(tarball)
			if res, err = mirror.Run(ctx, out, mirror.Options{Client: w.c}); err != nil {
				t.Fatal(err)
			}
			wantStates(t, res, "0.1.0=up-to-date 0.2.0=up-to-date")
			if fi2, _ := os.Stat(tarball); !fi2.ModTime().Equal(fi.ModTime()) {
				t.Fatal("an up-to-date tarball was written again")
			}

			// copy --from-tarball takes one release out.
			one := registry.Reference{Registry: dst.host, Repository: "single/hello", Tag: "0.2.0"}
			pol, err := out.LoadPolicy(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := relocate.FromTarball(ctx, w.c, tarball+":hello-0.2.0", one, relocate.Options{Policy: pol}); err != nil {
				t.Fatalf("copy --from-tarball: %v", err)
			}
			w.verified(t, one.String(), rel["0.2.0"])

			// mirror --from-tarball with a file selecting 0.2.0 only.
			in := w.file(t, "in.yaml", "sources:\n  - repository: "+upstream+"/addons/hello\n    versions: \"0.x\"\n    limit: 1\ndestination:\n  registry: "+dst.host+"/airgap\n")
			before := dst.writes.Load()
			res, err = mirror.Import(ctx, tarball, in, mirror.Options{Client: w.c, DryRun: true})
			if err != nil {
				t.Fatal(err)
			}
			wantStates(t, res, "0.2.0=would-copy")
			if dst.writes.Load() != before || len(res.Releases[0].SignedBy) != 1 {
				t.Fatalf("import --dry-run: %d -> %d writes, signed by %v", before, dst.writes.Load(), res.Releases[0].SignedBy)
			}
			res, err = mirror.Import(ctx, tarball, in, mirror.Options{Client: w.c})
			if err != nil {
				t.Fatal(err)
			}
			wantStates(t, res, "0.2.0=copied")
			if len(res.Unselected) != 1 || !strings.Contains(res.Unselected[0], "0.1.0") {
				t.Errorf("unselected %q, want 0.1.0 named", res.Unselected)
			}
			w.verified(t, dst.host+"/airgap/addons/hello:0.2.0", rel["0.2.0"])
			before = dst.writes.Load()
			if res, err = mirror.Import(ctx, tarball, in, mirror.Options{Client: w.c}); err != nil {
				t.Fatal(err)
			}
			wantStates(t, res, "0.2.0=up-to-date")
			if dst.writes.Load() != before {
				t.Fatal("a second import wrote")
			}
			again, _ := os.ReadFile(tarball)
			if !bytes.Equal(first, again) {
				t.Fatal("the tarball changed")
			}
		})
	}
}
