package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	kgzip "github.com/klauspost/compress/gzip"
)

// ---- workloads ----

// peerValidated names the peer pipeline that builds the tree with the
// kustomize CLI before packing it.
const peerValidated = "peer (kustomize build first)"

// peerPublish: tar+gzip, oras push, cosign sign, cosign attest. Returns the
// pinned reference.
func (h *harness) peerPublish(p *pipeline, dir, ref, scratch string) string {
	os.MkdirAll(scratch, 0o755)
	p.step("tar+gzip", scratch, "sh", "-c", `tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$0" -cf - . | gzip -6 -n > layer.tar.gz`, dir)
	dg := p.step("oras push", scratch, h.oras, "push", "--plain-http", "--artifact-type", artifactType,
		"--format", "go-template={{.digest}}", ref, "layer.tar.gz:"+layerType)
	pinned := repoOf(ref) + "@" + dg
	p.step("cosign sign", scratch, h.cosign, "sign", "--key", h.key, "--tlog-upload=false", "--allow-insecure-registry", "--yes", pinned)
	p.step("cosign attest", scratch, h.cosign, "attest", "--key", h.key, "--tlog-upload=false", "--allow-insecure-registry", "--yes",
		"--predicate", h.pred, "--type", "slsaprovenance1", pinned)
	return pinned
}

// peerConsume: cosign verify, cosign verify-attestation, oras pull, tar x.
func (h *harness) peerConsume(p *pipeline, pinned, scratch string) {
	os.RemoveAll(scratch)
	os.MkdirAll(filepath.Join(scratch, "tree"), 0o755)
	p.step("cosign verify", scratch, h.cosign, "verify", "--key", h.pub, "--insecure-ignore-tlog", "--allow-insecure-registry", pinned)
	p.step("cosign verify-attestation", scratch, h.cosign, "verify-attestation", "--key", h.pub, "--insecure-ignore-tlog",
		"--allow-insecure-registry", "--type", "slsaprovenance1", pinned)
	p.step("oras pull", scratch, h.oras, "pull", "--plain-http", "-o", scratch, pinned)
	p.step("tar x", scratch, "tar", "-xzf", "layer.tar.gz", "-C", "tree")
}

func (h *harness) publishConsume(rep int, reg, host, name, dir string) error {
	scratch := filepath.Join(h.work, "scratch", reg, name, fmt.Sprint(rep))
	// The repository's last segment is the add-on's name: push refuses a
	// reference that names another add-on than the signed one.
	peerRef := fmt.Sprintf("%s/pub/peer-r%d/%s:1.0.0", host, rep, name)
	apRef := fmt.Sprintf("%s/pub/ap-r%d/%s:1.0.0", host, rep, name)
	apAgainRef := fmt.Sprintf("%s/pub/ap-r%d-again/%s:1.0.0", host, rep, name)
	peerFirst := rep%2 == 0

	var peerPinned, apPinned string
	runPeer := func() error {
		p := h.newPipeline()
		peerPinned = h.peerPublish(p, dir, peerRef, filepath.Join(scratch, "peer-pub"))
		if p.err != nil {
			return p.err
		}
		h.add("publish-"+name, "peer", reg, p.wall, p.rss, p.steps)
		if h.kustomize != "" {
			// The validated peer: the tree is built by the kustomize CLI
			// before it is packed (what addonpack's render check does in
			// process), then the same pack, push, sign and attest.
			k := h.newPipeline()
			k.step("kustomize build", scratch, "sh", "-c", `"$0" build "$1" > /dev/null`, h.kustomize, dir)
			if k.err != nil {
				return k.err
			}
			steps := map[string]time.Duration{"kustomize build": k.wall}
			for s, d := range p.steps {
				steps[s] = d
			}
			h.add("publish-"+name, peerValidated, reg, p.wall+k.wall, max(p.rss, k.rss), steps)
		}
		return nil
	}
	// A first publish: an empty cache, as on a fresh CI machine, so the
	// render check runs.
	cacheDir := filepath.Join(scratch, "ap-cache")
	runAP := func() error {
		r, err := h.exec(nil, "", h.ap, "push", dir, apRef, "--key", h.key, "--cache-dir", cacheDir)
		if err != nil {
			return err
		}
		apPinned = strings.TrimSpace(r.stdout)
		h.add("publish-"+name, "addonpack", reg, r.wall, r.rssKB, nil)
		return nil
	}
	// The same tree published again with that cache (a retried job, a
	// second registry): the render check is remembered.
	republish := func() error {
		r, err := h.exec(nil, "", h.ap, "push", dir, apAgainRef, "--key", h.key, "--cache-dir", cacheDir)
		if err != nil {
			return err
		}
		h.add("publish-"+name, "addonpack (re-publish, check remembered)", reg, r.wall, r.rssKB, nil)
		return nil
	}
	if err := inOrder(peerFirst, runPeer, runAP); err != nil {
		return err
	}
	if err := republish(); err != nil {
		return err
	}

	consumePeer := func() error {
		p := h.newPipeline()
		h.peerConsume(p, peerPinned, filepath.Join(scratch, "peer-pull"))
		if p.err != nil {
			return p.err
		}
		h.add("consume-"+name, "peer", reg, p.wall, p.rss, p.steps)
		return nil
	}
	consumeAP := func() error {
		outDir := filepath.Join(scratch, "ap-pull")
		os.RemoveAll(outDir)
		r, err := h.exec(nil, "", h.ap, "pull", apRef, "-o", outDir, "--key", h.pub, "--require-provenance", "--no-cache")
		if err != nil {
			return err
		}
		h.add("consume-"+name, "addonpack", reg, r.wall, r.rssKB, nil)
		// Cached: warm once (untimed), then time a pull into a fresh directory.
		cacheDir := filepath.Join(scratch, "cache")
		warm := filepath.Join(scratch, "ap-pull-warm")
		os.RemoveAll(warm)
		if _, err := h.exec(nil, "", h.ap, "pull", apRef, "-o", warm, "--key", h.pub, "--require-provenance", "--cache-dir", cacheDir); err != nil {
			return err
		}
		outDir = filepath.Join(scratch, "ap-pull-cached")
		os.RemoveAll(outDir)
		r, err = h.exec(nil, "", h.ap, "pull", apRef, "-o", outDir, "--key", h.pub, "--require-provenance", "--cache-dir", cacheDir)
		if err != nil {
			return err
		}
		h.add("consume-"+name, "addonpack (cached)", reg, r.wall, r.rssKB, nil)
		return nil
	}
	if err := inOrder(!peerFirst, consumePeer, consumeAP); err != nil {
		return err
	}
	if name == "large" {
		// The consume-large target's denominator, in the same repetition.
		if err := h.inprocessBaseline(apPinned, filepath.Join(scratch, "layer")); err != nil {
			return err
		}
	}
	// Keep the disk bounded: the trees are checked, then dropped.
	return os.RemoveAll(scratch)
}

// apPublishOnly measures addonpack push of a variant the peer pipeline would
// pack identically (the peer does not render).
func (h *harness) apPublishOnly(rep int, reg, host, name, addon, dir string) error {
	ref := fmt.Sprintf("%s/pub/%s-ap-r%d/%s:1.0.0", host, name, rep, addon)
	r, err := h.exec(nil, "", h.ap, "push", dir, ref, "--key", h.key, "--no-cache")
	if err != nil {
		return err
	}
	h.add("publish-"+name, "addonpack", reg, r.wall, r.rssKB, nil)
	return nil
}

func inOrder(aFirst bool, a, b func() error) error {
	if !aFirst {
		a, b = b, a
	}
	if err := a(); err != nil {
		return err
	}
	return b()
}

// inprocessBaseline times, in this process, gunzip+untar of the exact
// content layer addonpack pushed (fetched with oras, untimed, and read from
// the page cache): the consume-large target's denominator. Both stdlib and
// klauspost gzip are recorded; the target uses stdlib.
func (h *harness) inprocessBaseline(pinned, scratch string) error {
	os.MkdirAll(scratch, 0o755)
	r, err := h.exec(nil, scratch, h.oras, "manifest", "fetch", "--plain-http", pinned)
	if err != nil {
		return err
	}
	var m struct {
		Layers []struct{ Digest string } `json:"layers"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || len(m.Layers) != 1 {
		return fmt.Errorf("manifest of %s: %v (%d layers)", pinned, err, len(m.Layers))
	}
	blob := filepath.Join(scratch, "layer.tar.gz")
	if _, err := h.exec(nil, scratch, h.oras, "blob", "fetch", "--plain-http", "--output", blob, repoOf(pinned)+"@"+m.Layers[0].Digest); err != nil {
		return err
	}
	for _, impl := range []string{"stdlib", "klauspost"} {
		out := filepath.Join(scratch, "tree-"+impl)
		t0 := time.Now()
		f, err := os.Open(blob)
		if err != nil {
			return err
		}
		var zr io.Reader
		if impl == "stdlib" {
			zr, err = gzip.NewReader(bufio.NewReaderSize(f, 1<<20))
		} else {
			zr, err = kgzip.NewReader(bufio.NewReaderSize(f, 1<<20))
		}
		if err == nil {
			err = untar(zr, out)
		}
		f.Close()
		if err != nil {
			return err
		}
		h.add("consume-large", "in-process gunzip+untar ("+impl+")", "", time.Since(t0), 0, nil)
	}
	return nil
}

func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	buf := make([]byte, 256<<10)
	for {
		hd, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(hd.Name))
		switch hd.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			if _, err := io.CopyBuffer(f, tr, buf); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		}
	}
}
