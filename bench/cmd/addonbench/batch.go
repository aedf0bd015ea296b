package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/addonpack/addonpack/bench/gen"
)

// batch pushes every add-on once with each tool, into fresh repositories.
// The peer side is 100 `oras push` calls of tarballs made beforehand (timed
// separately); addonpack is 100 sequential `addonpack push --key` calls,
// then one `push --prefix` call for all of them, twice.
func (h *harness) batch(rep int, reg, host string, dirs []string) ([]string, error) {
	scratch := filepath.Join(h.work, "scratch", "batch", reg, fmt.Sprint(rep))
	var refs []string
	peer := func() error {
		var tarWall, pushWall time.Duration
		var rss int64
		for i, d := range dirs {
			sd := filepath.Join(scratch, fmt.Sprintf("a%03d", i))
			os.MkdirAll(sd, 0o755)
			r, err := h.exec(nil, sd, "sh", "-c", `tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$0" -cf - . | gzip -6 -n > layer.tar.gz`, d)
			if err != nil {
				return err
			}
			tarWall += r.wall
		}
		for i := range dirs {
			sd := filepath.Join(scratch, fmt.Sprintf("a%03d", i))
			ref := fmt.Sprintf("%s/batch-r%d/peer-%03d:1.0.0", host, rep, i)
			r, err := h.exec(nil, sd, h.oras, "push", "--plain-http", "--artifact-type", artifactType, ref, "layer.tar.gz:"+layerType)
			if err != nil {
				return err
			}
			pushWall += r.wall
			rss = max(rss, r.rssKB)
		}
		h.add("batch", "oras push (unsigned)", reg, pushWall, rss, map[string]time.Duration{"tar+gzip (not in the target)": tarWall})
		return nil
	}
	ap := func() error {
		var wall time.Duration
		var rss int64
		for i, d := range dirs {
			ref := fmt.Sprintf("%s/batch-r%d/ap/addon-%03d:1.0.0", host, rep, i)
			r, err := h.exec(nil, "", h.ap, "push", d, ref, "--key", h.key, "--no-cache")
			if err != nil {
				return err
			}
			wall += r.wall
			rss = max(rss, r.rssKB)
			refs = append(refs, ref)
		}
		h.add("batch", "addonpack push --key (sequential calls)", reg, wall, rss, nil)
		return nil
	}
	// One call for the whole batch: one process, one key unlock, one client.
	// A first publish of the batch (empty cache: every render check runs),
	// then the same trees again (a re-run job): the checks are remembered.
	cacheDir := filepath.Join(scratch, "ap-cache")
	apBatch := func(label, repo string) error {
		args := append([]string{"push", "--prefix", fmt.Sprintf("%s/batch-r%d/%s", host, rep, repo), "--key", h.key, "--cache-dir", cacheDir}, dirs...)
		r, err := h.exec(nil, "", h.ap, args...)
		if err != nil {
			return err
		}
		h.add("batch", label, reg, r.wall, r.rssKB, nil)
		return nil
	}
	if reg != "distribution" {
		ap = func() error { return nil } // 100 processes of scrypt each: once is enough
	}
	if err := inOrder(rep%2 == 0, peer, ap); err != nil {
		return nil, err
	}
	if err := apBatch("addonpack push --prefix --key (one call)", "prefix"); err != nil {
		return nil, err
	}
	if err := apBatch("addonpack push --prefix --key (again, checks remembered)", "again"); err != nil {
		return nil, err
	}
	return refs, os.RemoveAll(scratch)
}

// huge generates a ~1 GB add-on and measures one build, push and pull for
// peak RSS (limits raised: the defaults cap a tree at 512 MiB).
func (h *harness) huge(host string) error {
	dir := filepath.Join(h.work, "src", "huge")
	logf("generating the ~1 GB add-on")
	n, err := gen.Write(dir, gen.Huge())
	if err != nil {
		return err
	}
	h.notes = append(h.notes, fmt.Sprintf("huge add-on: %d bytes in %d files; CRDs packed but not rendered", n, gen.Huge().Files))
	limits := []string{"--max-total-size", strconv.FormatInt(4<<30, 10), "--max-entries", "100000"}
	tarball := filepath.Join(h.work, "huge.tar")
	ref := host + "/huge/huge:1.0.0" // the repository names the add-on
	steps := []struct {
		label string
		args  []string
	}{
		{"build (pack only)", append([]string{"build", dir}, limits...)},
		{"build --tarball", append([]string{"build", dir, "--tarball", tarball}, limits...)},
		{"push (layout tarball)", []string{"push", tarball, ref}},
		{"pull --no-cache", append([]string{"pull", ref, "-o", filepath.Join(h.work, "huge-pulled"), "--insecure-skip-verify", "--no-cache"}, limits...)},
	}
	for _, s := range steps {
		logf("huge: %s", s.label)
		r, err := h.exec(nil, "", h.ap, s.args...)
		if err != nil {
			h.notes = append(h.notes, fmt.Sprintf("huge %s failed: %v", s.label, firstLines(err.Error(), 3)))
			h.add("huge-1GB "+s.label, "addonpack (FAILED)", "distribution", r.wall, r.rssKB, nil)
			continue
		}
		h.add("huge-1GB "+s.label, "addonpack", "distribution", r.wall, r.rssKB, nil)
	}
	// Peer reference: tar|gzip, oras push, oras pull, tar x.
	scratch := filepath.Join(h.work, "scratch", "huge")
	p := h.newPipeline()
	os.MkdirAll(scratch, 0o755)
	p.step("tar+gzip", scratch, "sh", "-c", `tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$0" -cf - . | gzip -6 -n > layer.tar.gz`, dir)
	p.step("oras push", scratch, h.oras, "push", "--plain-http", "--artifact-type", artifactType, host+"/huge/peer:1.0.0", "layer.tar.gz:"+layerType)
	if p.err == nil {
		h.add("huge-1GB push", "peer tar|gzip + oras push", "distribution", p.wall, p.rss, p.steps)
	}
	p2 := h.newPipeline()
	pull := filepath.Join(h.work, "scratch", "huge-pull")
	os.MkdirAll(filepath.Join(pull, "tree"), 0o755)
	p2.step("oras pull", pull, h.oras, "pull", "--plain-http", "-o", pull, host+"/huge/peer:1.0.0")
	p2.step("tar x", pull, "tar", "-xzf", "layer.tar.gz", "-C", "tree")
	if p2.err == nil {
		h.add("huge-1GB pull", "peer oras pull + tar x", "distribution", p2.wall, p2.rss, p2.steps)
	}
	os.RemoveAll(scratch)
	os.RemoveAll(pull)
	os.RemoveAll(filepath.Join(h.work, "huge-pulled"))
	os.Remove(tarball)
	return os.RemoveAll(dir)
}
