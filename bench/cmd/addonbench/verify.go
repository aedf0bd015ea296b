package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/bench/gen"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/provenance"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/spec"
)

// ---- verify 1,000 ----

// Labels of the verify rows.
const (
	verifyWorkload = "verify-N"
	verifyCold     = "addonpack verify REF... (one process)"
	verifyWarm     = "addonpack verify REF... (one process, verified cache warm)"
)

// verifyAll measures one `addonpack verify --key PUB --require-provenance
// REF...` call over n signed add-ons on each registry, with a fresh
// verified-digest cache (cold) and then again with that cache warm. The n
// artifacts are published by verifySetup (not timed).
func (h *harness) verifyAll(ctx context.Context, regs []registryUnderTest, n int) error {
	for _, reg := range regs {
		t0 := time.Now()
		refs, err := h.verifySetup(ctx, reg.host, "verify-"+reg.name, n)
		if err != nil {
			return fmt.Errorf("verify setup on %s: %w", reg.name, err)
		}
		logf("verify: %d signed add-ons published to %s in %s (not timed)", n, reg.name, time.Since(t0).Round(time.Millisecond))
		resetPeakRSS()
		for rep := 0; rep < h.reps; rep++ {
			cacheDir := filepath.Join(h.work, fmt.Sprintf("verify-cache-%s-%d", reg.name, rep))
			args := append([]string{"verify", "--key", h.pub, "--require-provenance", "--cache-dir", cacheDir}, refs...)
			cold, err := h.exec(nil, "", h.ap, args...)
			if err != nil {
				return err
			}
			warm, err := h.exec(nil, "", h.ap, args...)
			if err != nil {
				return err
			}
			h.add(verifyWorkload, verifyCold, reg.name, cold.wall, cold.rssKB, nil)
			h.add(verifyWorkload, verifyWarm, reg.name, warm.wall, warm.rssKB, nil)
			logf("verify %s rep %d/%d: %d refs cold %s, warm %s, load %s", reg.name, rep+1, h.reps, n,
				cold.wall.Round(time.Millisecond), warm.wall.Round(time.Millisecond), loadavg())
		}
	}
	return nil
}

// registryUnderTest is a registry the harness started.
type registryUnderTest struct{ name, host string }

// verifySetup publishes n copies of the small add-on to host/prefix/aNNNN/verify:1.0.0,
// each as `addonpack push DIR REF --key K` would (manifest, cosign signature,
// SLSA v1 provenance attestation, in h.verifyFormat: Sigstore bundle
// referrers, push's default, unless BENCH_VERIFY_FORMAT says classic), in process: the add-on is
// built once (kustomize runs once) and copy i differs only in its `created`
// annotation (what SOURCE_DATE_EPOCH=i gives), so every copy has its own
// digest, signature and attestation. It returns the tag references.
func (h *harness) verifySetup(ctx context.Context, host, prefix string, n int) ([]string, error) {
	dir := filepath.Join(h.work, "src", "verify")
	if _, err := gen.Write(dir, gen.Small("verify", 7)); err != nil {
		return nil, err
	}
	base := memory.New()
	res, err := build.Build(ctx, dir, base, build.Options{})
	if err != nil {
		return nil, err
	}
	raw, err := content.FetchAll(ctx, base, res.Manifest)
	if err != nil {
		return nil, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("manifest %s: %w", res.Manifest.Digest, err)
	}
	signer, err := keys.LoadSigner(ctx, h.key, keys.StaticPass([]byte(password)), nil)
	if err != nil {
		return nil, err
	}
	c, err := registry.New(registry.Options{})
	if err != nil {
		return nil, err
	}
	refs := make([]string, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			// The repository's last element names the add-on (the
			// reference binding, specs/artifact.md 11.6).
			ref := registry.Reference{Registry: host, Repository: fmt.Sprintf("%s/a%04d/verify", prefix, i), Tag: "1.0.0"}
			refs[i] = ref.String()
			errs[i] = publishCopy(ctx, c, base, m, res, signer, ref, int64(i), h.verifyFormat)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", refs[i], err)
		}
	}
	return refs, nil
}

// publishCopy pushes copy epoch of the built add-on to ref, signs it and
// attaches its provenance, as push.Push with SignOptions does.
func publishCopy(ctx context.Context, c *registry.Client, base content.ReadOnlyStorage, m ocispec.Manifest, res *build.Result, s *keys.Signer, ref registry.Reference, epoch int64, format sign.Format) error {
	started := time.Now()
	created := time.Unix(epoch, 0).UTC()
	ann := make(map[string]string, len(m.Annotations))
	for k, v := range m.Annotations {
		ann[k] = v
	}
	ann[spec.AnnotationCreated] = created.Format(time.RFC3339)
	m.Annotations = ann
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	root := ocispec.Descriptor{MediaType: spec.ManifestMediaType, ArtifactType: spec.ArtifactType, Digest: digest.FromBytes(raw), Size: int64(len(raw))}
	if _, err := c.Push(ctx, withManifest{base, root, raw}, root, ref); err != nil {
		return err
	}
	t := sign.Target{Client: c, Ref: ref}
	if _, err := sign.Sign(ctx, t, root, s, sign.Options{Format: format}); err != nil {
		return err
	}
	f := provenance.Facts{
		SubjectName: ref.Repo(), SubjectDigest: root.Digest,
		AddonName: res.Addon.Metadata.Name, AddonVersion: res.Addon.Spec.Version,
		Parameters: map[string]string{"source": "directory", "tag": ref.Tag, "sourceDateEpoch": strconv.FormatInt(epoch, 10)},
		BuilderID:  "https://ci.example/addonbench",
		StartedOn:  started, FinishedOn: time.Now(),
	}
	st, err := provenance.New(f)
	if err != nil {
		return err
	}
	stmt, err := provenance.Marshal(st)
	if err != nil {
		return err
	}
	_, err = sign.Attest(ctx, t, root, s, stmt, sign.Options{Format: format})
	return err
}

// withManifest is base plus one manifest.
type withManifest struct {
	content.ReadOnlyStorage
	desc ocispec.Descriptor
	raw  []byte
}

func (w withManifest) Fetch(ctx context.Context, d ocispec.Descriptor) (io.ReadCloser, error) {
	if d.Digest == w.desc.Digest {
		return io.NopCloser(bytes.NewReader(w.raw)), nil
	}
	return w.ReadOnlyStorage.Fetch(ctx, d)
}

func (w withManifest) Exists(ctx context.Context, d ocispec.Descriptor) (bool, error) {
	if d.Digest == w.desc.Digest {
		return true, nil
	}
	return w.ReadOnlyStorage.Exists(ctx, d)
}

// verifyRows are the verify lines of the table: measured over n references
// (the targets are for 1,000; other n are scaled linearly and say so).
func (h *harness) verifyRows(n int) []row {
	var rows []row
	for _, reg := range []string{"distribution", "testregistry"} {
		for _, v := range []struct {
			tool   string
			limit  float64
			target string
		}{{verifyCold, 5000, "1,000 in ≤5 s"}, {verifyWarm, 1000, "1,000 cached in ≤1 s"}} {
			s := h.get(verifyWorkload, v.tool, reg)
			if s == nil {
				continue
			}
			med := median(s.WallMS)
			limit, workload := v.limit, fmt.Sprintf("verify %d (%s)", n, h.verifyFormat)
			if n != 1000 {
				limit = v.limit * float64(n) / 1000
				workload += " (target scaled from 1,000)"
			}
			rows = append(rows, row{Workload: workload, Registry: reg, Addonpack: v.tool, APms: med, APRange: spread(s.WallMS),
				APRSSMiB: maxRSSMiB(s), Target: v.target, Ratio: med / limit,
				Verdict: verdict(med <= limit, fmt.Sprintf("%.2f s for %d (%.2f ms each)", med/1000, n, med/float64(n)))})
		}
	}
	return rows
}

// resetPeakRSS gives back the memory the setup used and resets this
// process's peak RSS: at exec, Linux carries the parent's high-water mark
// into the child's (wait4's ru_maxrss counts the address space the child
// shared with the harness until exec), so without this every child would
// report at least the harness's own peak.
func resetPeakRSS() {
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // Linux ≥ 4.0; best effort
}
