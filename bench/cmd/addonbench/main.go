// Command addonbench measures addonpack against the peer pipeline the issue
// describes (tar+gzip, oras push, cosign sign, cosign attest; cosign verify,
// cosign verify-attestation, oras pull, tar x), side by side in one run,
// interleaved, with repetitions; it prints medians and ratios against the
// targets and writes JSON. See bench/README.md.
//
// Environment:
//
//	BENCH_REPS        repetitions per workload (default 5)
//	BENCH_MANY        add-ons in the batch workload (default 100)
//	BENCH_VERIFY_N    add-ons verified per repetition in the verify loop (default BENCH_MANY)
//	BENCH_HUGE=1      also generate a ~1 GB add-on and measure peak RSS of build/push/pull
//	BENCH_LARGE=0     skip the large add-on (its kustomize check takes about a minute)
//	BENCH_WORK        work directory (default a new temporary directory, removed at the end)
//	BENCH_OUT         JSON output (default bench/results/latest.json)
//	ADDONPACK_TOOLS   where oras and cosign live (default ~/.cache/addonpack-tools)
//	ADDONPACK_DOCKER_REGISTRY  the distribution binary (default /usr/bin/docker-registry)
package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/addonpack/addonpack/bench/gen"
)

const (
	artifactType = "application/vnd.addonpack.addon.v1"
	layerType    = "application/vnd.oci.image.layer.v1.tar+gzip"
	password     = "bench-password"
	predicate    = `{"buildDefinition":{"buildType":"https://addonpack.dev/bench/tar-oras","externalParameters":{"source":"directory"}},"runDetails":{"builder":{"id":"https://ci.example/bench"}}}`
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "addonbench:", err)
		os.Exit(1)
	}
}

type harness struct {
	work, tools, ap, oras, cosign, flux string
	key, pub, pred                      string
	env                                 []string
	reps                                int
	results                             map[string]*series
	order                               []string
	notes                               []string
}

// series is every sample of one tool on one workload.
type series struct {
	Workload string    `json:"workload"`
	Tool     string    `json:"tool"`
	Registry string    `json:"registry,omitempty"`
	WallMS   []float64 `json:"wallMs"`
	RSSKB    []int64   `json:"peakRssKb"`
	// Steps holds the per-step wall times of multi-command pipelines.
	Steps map[string][]float64 `json:"stepsMs,omitempty"`
	Note  string               `json:"note,omitempty"`
}

func (h *harness) add(workload, tool, reg string, wall time.Duration, rss int64, steps map[string]time.Duration) {
	key := workload + "|" + tool + "|" + reg
	s, ok := h.results[key]
	if !ok {
		s = &series{Workload: workload, Tool: tool, Registry: reg, Steps: map[string][]float64{}}
		h.results[key] = s
		h.order = append(h.order, key)
	}
	s.WallMS = append(s.WallMS, ms(wall))
	s.RSSKB = append(s.RSSKB, rss)
	for k, v := range steps {
		s.Steps[k] = append(s.Steps[k], ms(v))
	}
}

func (h *harness) get(workload, tool, reg string) *series {
	return h.results[workload+"|"+tool+"|"+reg]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n
		}
	}
	return def
}

func run() error {
	start := time.Now()
	h := &harness{reps: envInt("BENCH_REPS", 5), results: map[string]*series{}}
	many := envInt("BENCH_MANY", 100)
	verifyN := min(envInt("BENCH_VERIFY_N", many), many)
	huge := os.Getenv("BENCH_HUGE") == "1"
	doLarge := os.Getenv("BENCH_LARGE") != "0"
	out := os.Getenv("BENCH_OUT")
	if out == "" {
		out = filepath.Join("bench", "results", "latest.json")
	}
	h.tools = os.Getenv("ADDONPACK_TOOLS")
	if h.tools == "" {
		home, _ := os.UserHomeDir()
		h.tools = filepath.Join(home, ".cache", "addonpack-tools")
	}
	h.oras, h.cosign = filepath.Join(h.tools, "bin", "oras"), filepath.Join(h.tools, "bin", "cosign")
	for _, p := range []string{h.oras, h.cosign} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s missing: run bench/install-peers.sh (make bench does)", p)
		}
	}
	if p, err := exec.LookPath("flux"); err == nil {
		h.flux = p
		h.notes = append(h.notes, "flux found at "+p+" but its pipeline is not wired into this harness yet; oras is the peer")
	}
	h.work = os.Getenv("BENCH_WORK")
	if h.work == "" {
		d, err := os.MkdirTemp("", "addonbench-")
		if err != nil {
			return err
		}
		h.work = d
		defer os.RemoveAll(d)
	}
	home := filepath.Join(h.work, "home")
	for _, d := range []string{home, filepath.Join(home, "docker"), filepath.Join(home, "tuf")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	h.env = []string{"HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "xdg"), "TUF_ROOT=" + filepath.Join(home, "tuf"),
		"DOCKER_CONFIG=" + filepath.Join(home, "docker"), "COSIGN_PASSWORD=" + password, "COSIGN_YES=true",
		"SIGSTORE_NO_CACHE=true", "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir()}

	uptimeStart := uptime()
	logf("work dir %s, %d reps, load: %s", h.work, h.reps, uptimeStart)

	// The CLI under test, built from this checkout.
	h.ap = filepath.Join(h.work, "addonpack")
	if r, err := h.exec(nil, "", "go", "build", "-o", h.ap, "./cmd/addonpack"); err != nil {
		return fmt.Errorf("building addonpack: %w (%s)", err, r.stderr)
	}
	versions := map[string]string{"go": runtime.Version()}
	if r, err := h.exec(nil, "", "git", "describe", "--always", "--dirty"); err == nil {
		versions["checkout"] = strings.TrimSpace(r.stdout) // other engineers commit while this runs
	}
	for name, args := range map[string][]string{"addonpack": {h.ap, "version"}, "oras": {h.oras, "version"}, "cosign": {h.cosign, "version"}} {
		r, _ := h.exec(nil, "", args[0], args[1:]...)
		versions[name] = firstLines(r.stdout+r.stderr, 2)
		for _, l := range strings.Split(r.stdout+r.stderr, "\n") {
			if strings.HasPrefix(l, "GitVersion:") {
				versions[name] = strings.TrimSpace(l)
			}
		}
	}

	// Inputs.
	logf("generating add-ons")
	src := filepath.Join(h.work, "src")
	small := filepath.Join(src, "small")
	if _, err := gen.Write(small, gen.Small("small", 1)); err != nil {
		return err
	}
	large, largeU := filepath.Join(src, "large"), filepath.Join(src, "large-unrendered")
	if doLarge {
		if _, err := gen.Write(large, gen.Large()); err != nil {
			return err
		}
		lu := gen.Large()
		lu.Unlisted = true
		if _, err := gen.Write(largeU, lu); err != nil {
			return err
		}
	}
	var manyDirs []string
	for i := 0; i < many; i++ {
		d := filepath.Join(src, "many", fmt.Sprintf("a%03d", i))
		if _, err := gen.Write(d, gen.Small(fmt.Sprintf("addon-%03d", i), uint64(100+i))); err != nil {
			return err
		}
		manyDirs = append(manyDirs, d)
	}
	keyPrefix := filepath.Join(h.work, "keys", "release")
	os.MkdirAll(filepath.Dir(keyPrefix), 0o700)
	if r, err := h.exec(nil, "", h.ap, "keygen", "--output-key-prefix", keyPrefix); err != nil {
		return fmt.Errorf("keygen: %w (%s)", err, r.stderr)
	}
	h.key, h.pub = keyPrefix+".key", keyPrefix+".pub"
	h.pred = filepath.Join(h.work, "slsa.json")
	if err := os.WriteFile(h.pred, []byte(predicate), 0o600); err != nil {
		return err
	}

	// Registries.
	dist, stopDist, err := h.startDistribution()
	if err != nil {
		return err
	}
	defer stopDist()
	treg, stopTreg, err := h.startTestregistry()
	if err != nil {
		return err
	}
	defer stopTreg()
	registries := []struct{ name, host string }{{"distribution", dist}, {"testregistry", treg}}
	logf("distribution at %s, addonpack registry serve at %s", dist, treg)

	// Small and large: publish then consume, per registry, interleaved.
	type addon struct{ name, dir string }
	addons := []addon{{"small", small}}
	if doLarge {
		addons = append(addons, addon{"large", large})
	}
	for rep := 0; rep < h.reps; rep++ {
		for _, reg := range registries {
			for _, a := range addons {
				if a.name == "large" && reg.name != "distribution" {
					continue // the large add-on runs on the primary registry only (time)
				}
				if err := h.publishConsume(rep, reg.name, reg.host, a.name, a.dir); err != nil {
					return err
				}
				if a.name == "large" {
					if err := h.apPublishOnly(rep, reg.name, reg.host, "large-unrendered", largeU); err != nil {
						return err
					}
				}
			}
		}
		logf("rep %d/%d done (small+large), load %s", rep+1, h.reps, loadavg())
	}

	// Batch and verify, on the primary registry.
	var signedRefs []string
	for rep := 0; rep < h.reps; rep++ {
		refs, err := h.batch(rep, dist, manyDirs)
		if err != nil {
			return err
		}
		if rep == 0 {
			signedRefs = refs
		}
		logf("batch rep %d/%d done, load %s", rep+1, h.reps, loadavg())
	}
	if err := h.verifyLoop(signedRefs[:verifyN]); err != nil {
		return err
	}
	if huge {
		if err := h.huge(dist); err != nil {
			return err
		}
	}

	rows := h.table(many, verifyN)
	printTable(os.Stdout, rows)
	doc := map[string]any{
		"started":     start.UTC().Format(time.RFC3339),
		"finished":    time.Now().UTC().Format(time.RFC3339),
		"uptimeStart": uptimeStart,
		"uptimeEnd":   uptime(),
		"cpus":        runtime.NumCPU(),
		"reps":        h.reps,
		"many":        many,
		"verifyN":     verifyN,
		"huge":        huge,
		"versions":    versions,
		"notes":       h.notes,
		"rows":        rows,
		"series":      h.ordered(),
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	logf("wrote %s (%s total)", out, time.Since(start).Round(time.Second))
	return nil
}

func (h *harness) ordered() []*series {
	out := make([]*series, 0, len(h.order))
	for _, k := range h.order {
		out = append(out, h.results[k])
	}
	return out
}

// ---- running commands ----

type result struct {
	wall           time.Duration
	rssKB          int64
	stdout, stderr string
}

// exec runs a command with the harness environment and returns its wall time
// and peak RSS (the rusage wait4 reports for the child: its own and its
// waited-for descendants' maximum).
func (h *harness) exec(extraEnv []string, dir, name string, args ...string) (result, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(append([]string{}, h.env...), extraEnv...)
	if name == "go" {
		cmd.Env = nil // the caller's environment: its Go build cache and module cache
	}
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	err := cmd.Run()
	r := result{wall: time.Since(t0), stdout: out.String(), stderr: errb.String()}
	if ps := cmd.ProcessState; ps != nil {
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			r.rssKB = ru.Maxrss
		}
	}
	if err != nil {
		return r, fmt.Errorf("%s %s: %w\n%s%s", filepath.Base(name), strings.Join(args, " "), err, r.stdout, r.stderr)
	}
	return r, nil
}

// pipeline runs steps in order, summing wall time, keeping the largest RSS.
type pipeline struct {
	h     *harness
	wall  time.Duration
	rss   int64
	steps map[string]time.Duration
	err   error
	last  result
}

func (p *pipeline) step(label, dir, name string, args ...string) string {
	if p.err != nil {
		return ""
	}
	r, err := p.h.exec(nil, dir, name, args...)
	p.wall += r.wall
	p.rss = max(p.rss, r.rssKB)
	if p.steps == nil {
		p.steps = map[string]time.Duration{}
	}
	p.steps[label] += r.wall
	p.err, p.last = err, r
	return strings.TrimSpace(r.stdout)
}

func (h *harness) newPipeline() *pipeline { return &pipeline{h: h} }

// ---- workloads ----

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
	peerRef := fmt.Sprintf("%s/pub/%s-peer-r%d:1.0.0", host, name, rep)
	apRef := fmt.Sprintf("%s/pub/%s-ap-r%d:1.0.0", host, name, rep)
	peerFirst := rep%2 == 0

	var peerPinned, apPinned string
	runPeer := func() error {
		p := h.newPipeline()
		peerPinned = h.peerPublish(p, dir, peerRef, filepath.Join(scratch, "peer-pub"))
		if p.err != nil {
			return p.err
		}
		h.add("publish-"+name, "peer", reg, p.wall, p.rss, p.steps)
		return nil
	}
	runAP := func() error {
		r, err := h.exec(nil, "", h.ap, "push", dir, apRef, "--key", h.key)
		if err != nil {
			return err
		}
		apPinned = strings.TrimSpace(r.stdout)
		h.add("publish-"+name, "addonpack", reg, r.wall, r.rssKB, nil)
		return nil
	}
	if err := inOrder(peerFirst, runPeer, runAP); err != nil {
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
func (h *harness) apPublishOnly(rep int, reg, host, name, dir string) error {
	ref := fmt.Sprintf("%s/pub/%s-ap-r%d:1.0.0", host, name, rep)
	r, err := h.exec(nil, "", h.ap, "push", dir, ref, "--key", h.key)
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

// batch pushes every add-on once with each tool, into fresh repositories.
// The peer side is 100 `oras push` calls of tarballs made beforehand (timed
// separately); addonpack is 100 sequential `addonpack push --key` calls
// (there is no multi-directory push yet).
func (h *harness) batch(rep int, host string, dirs []string) ([]string, error) {
	scratch := filepath.Join(h.work, "scratch", "batch", fmt.Sprint(rep))
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
		h.add("batch", "oras push (unsigned)", "distribution", pushWall, rss, map[string]time.Duration{"tar+gzip (not in the target)": tarWall})
		return nil
	}
	ap := func() error {
		var wall time.Duration
		var rss int64
		for i, d := range dirs {
			ref := fmt.Sprintf("%s/batch-r%d/ap-%03d:1.0.0", host, rep, i)
			r, err := h.exec(nil, "", h.ap, "push", d, ref, "--key", h.key)
			if err != nil {
				return err
			}
			wall += r.wall
			rss = max(rss, r.rssKB)
			refs = append(refs, ref)
		}
		h.add("batch", "addonpack push --key (sequential calls)", "distribution", wall, rss, nil)
		return nil
	}
	// One call for the whole batch: one process, one key unlock, one client.
	apBatch := func() error {
		args := append([]string{"push", "--prefix", fmt.Sprintf("%s/batch-r%d/prefix", host, rep), "--key", h.key}, dirs...)
		r, err := h.exec(nil, "", h.ap, args...)
		if err != nil {
			return err
		}
		h.add("batch", "addonpack push --prefix --key (one call)", "distribution", r.wall, r.rssKB, nil)
		return nil
	}
	if err := inOrder(rep%2 == 0, peer, ap); err != nil {
		return nil, err
	}
	if err := apBatch(); err != nil {
		return nil, err
	}
	return refs, os.RemoveAll(scratch)
}

// verifyLoop runs `addonpack verify` over signed references (uncached; the
// command has no cache), and a consumer verb that takes the verified-digest
// cache (`config defaults`, which reads only the cached config blob), warm.
func (h *harness) verifyLoop(refs []string) error {
	cacheDir := filepath.Join(h.work, "verify-cache")
	for _, ref := range refs {
		if _, err := h.exec(nil, "", h.ap, "config", "defaults", ref, "--key", h.pub, "--require-provenance", "--cache-dir", cacheDir); err != nil {
			return err
		}
	}
	for rep := 0; rep < h.reps; rep++ {
		var cold, warm time.Duration
		var rssC, rssW int64
		loop := func(cached bool) error {
			for _, ref := range refs {
				args := []string{"verify", ref, "--key", h.pub, "--require-provenance"}
				if cached {
					args = []string{"config", "defaults", ref, "--key", h.pub, "--require-provenance", "--cache-dir", cacheDir}
				}
				r, err := h.exec(nil, "", h.ap, args...)
				if err != nil {
					return err
				}
				if cached {
					warm += r.wall
					rssW = max(rssW, r.rssKB)
				} else {
					cold += r.wall
					rssC = max(rssC, r.rssKB)
				}
			}
			return nil
		}
		if err := inOrder(rep%2 == 0, func() error { return loop(false) }, func() error { return loop(true) }); err != nil {
			return err
		}
		h.add("verify-N", "addonpack verify (loop)", "distribution", cold, rssC, nil)
		h.add("verify-N", "addonpack config defaults, verified cache warm (loop)", "distribution", warm, rssW, nil)

		// One process for all references: shared client and policy,
		// bounded concurrency; then again with the verified-digest cache warm.
		batchCache := filepath.Join(h.work, fmt.Sprintf("verify-batch-cache-%d", rep))
		batch := append([]string{"verify", "--key", h.pub, "--require-provenance", "--cache-dir", batchCache}, refs...)
		cb, err := h.exec(nil, "", h.ap, batch...)
		if err != nil {
			return err
		}
		wb, err := h.exec(nil, "", h.ap, batch...)
		if err != nil {
			return err
		}
		h.add("verify-N", "addonpack verify REF... (one process)", "distribution", cb.wall, cb.rssKB, nil)
		h.add("verify-N", "addonpack verify REF... (one process, verified cache warm)", "distribution", wb.wall, wb.rssKB, nil)
	}
	return nil
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
	ref := host + "/huge/addon:1.0.0"
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

// ---- registries ----

var listening = regexp.MustCompile(`listening on (?:https?://)?(127\.0\.0\.1:[0-9]+)`)

func (h *harness) startDistribution() (string, func(), error) {
	bin := os.Getenv("ADDONPACK_DOCKER_REGISTRY")
	if bin == "" {
		bin = "/usr/bin/docker-registry"
	}
	dir := filepath.Join(h.work, "distribution")
	os.MkdirAll(dir, 0o755)
	cfg := fmt.Sprintf("version: 0.1\nlog:\n  level: info\n  formatter: text\nstorage:\n  filesystem:\n    rootdirectory: %s\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:0\n  secret: addonbench\n", filepath.Join(dir, "data"))
	cfgPath := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return "", nil, err
	}
	return startServer(bin, "serve", cfgPath)
}

func (h *harness) startTestregistry() (string, func(), error) {
	return startServer(h.ap, "registry", "serve", "--addr", "127.0.0.1:0", "--root", filepath.Join(h.work, "testregistry"))
}

// startServer starts a registry, reads host:port from its stderr, and keeps
// draining the log so the server never blocks on a full pipe.
func startServer(bin string, args ...string) (string, func(), error) {
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	stop := func() { cmd.Process.Kill(); cmd.Wait() }
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); !sent && m != nil {
				found <- m[1]
				sent = true
			}
		}
	}()
	select {
	case host := <-found:
		return host, stop, nil
	case <-time.After(20 * time.Second):
		stop()
		return "", nil, fmt.Errorf("%s did not report its address within 20s", bin)
	}
}

// ---- report ----

// row is one line of the table.
type row struct {
	Workload  string  `json:"workload"`
	Registry  string  `json:"registry"`
	Addonpack string  `json:"addonpack"`
	Peer      string  `json:"peer"`
	APms      float64 `json:"addonpackMedianMs"`
	Peerms    float64 `json:"peerMedianMs"`
	Ratio     float64 `json:"ratio,omitempty"`
	Target    string  `json:"target"`
	Verdict   string  `json:"verdict"`
	APRange   string  `json:"addonpackRangeMs,omitempty"`
	PeerRange string  `json:"peerRangeMs,omitempty"`
	APRSSMiB  float64 `json:"addonpackPeakRssMiB"`
	PeerRSS   float64 `json:"peerPeakRssMiB"`
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// spread is "min–max" of the samples.
func spread(xs []float64) string {
	if len(xs) == 0 {
		return ""
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return fmt.Sprintf("%.0f–%.0f", lo, hi)
}

func maxRSSMiB(s *series) float64 {
	var m int64
	for _, v := range s.RSSKB {
		m = max(m, v)
	}
	return float64(m) / 1024
}

func (h *harness) table(many, verifyN int) []row {
	var rows []row
	cmp := func(workload, reg, apTool, peerTool, peerReg string, target float64, targetText string) {
		a, p := h.get(workload, apTool, reg), h.get(workload, peerTool, peerReg)
		if a == nil || p == nil {
			return
		}
		r := row{Workload: workload, Registry: reg, Addonpack: apTool, Peer: peerTool, APms: median(a.WallMS), Peerms: median(p.WallMS),
			APRSSMiB: maxRSSMiB(a), PeerRSS: maxRSSMiB(p), Target: targetText}
		r.APRange, r.PeerRange = spread(a.WallMS), spread(p.WallMS)
		if r.Peerms > 0 {
			r.Ratio = r.APms / r.Peerms
		}
		if target > 0 {
			r.Verdict = verdict(r.Ratio <= target, fmt.Sprintf("%.2fx of %.2fx", r.Ratio, target))
		} else {
			r.Verdict = "(info)"
		}
		rows = append(rows, r)
	}
	for _, reg := range []string{"distribution", "testregistry"} {
		cmp("publish-small", reg, "addonpack", "peer", reg, 0.35, "≤0.35x")
		cmp("consume-small", reg, "addonpack", "peer", reg, 0.3, "≤0.3x")
		cmp("consume-small", reg, "addonpack (cached)", "peer", reg, 0.3, "≤0.3x")
		cmp("publish-large", reg, "addonpack", "peer", reg, 0.25, "≤0.25x")
		if h.get("publish-large-unrendered", "addonpack", reg) != nil && h.get("publish-large", "peer", reg) != nil {
			a, p := h.get("publish-large-unrendered", "addonpack", reg), h.get("publish-large", "peer", reg)
			rt := median(a.WallMS) / median(p.WallMS)
			rows = append(rows, row{Workload: "publish-large (CRDs not rendered)", Registry: reg, Addonpack: "addonpack", Peer: "peer",
				APms: median(a.WallMS), Peerms: median(p.WallMS), Ratio: rt, APRSSMiB: maxRSSMiB(a), PeerRSS: maxRSSMiB(p),
				Target: "≤0.25x (diagnostic)", Verdict: verdict(rt <= 0.25, fmt.Sprintf("%.2fx of 0.25x", rt))})
		}
		cmp("consume-large", reg, "addonpack", "peer", reg, 0, "(info)")
		cmp("consume-large", reg, "addonpack", "in-process gunzip+untar (stdlib)", "", 1.3, "≤1.3x gunzip+untar")
		cmp("consume-large", reg, "addonpack (cached)", "in-process gunzip+untar (stdlib)", "", 1.3, "≤1.3x gunzip+untar")
	}
	cmp("batch", "distribution", "addonpack push --key (sequential calls)", "oras push (unsigned)", "distribution", 0.2, fmt.Sprintf("≤0.2x (%d add-ons)", many))
	cmp("batch", "distribution", "addonpack push --prefix --key (one call)", "oras push (unsigned)", "distribution", 0.2, fmt.Sprintf("≤0.2x (%d add-ons)", many))
	// verify: absolute targets, extrapolated from N to 1,000.
	for _, v := range []struct {
		tool   string
		limit  float64
		target string
	}{{"addonpack verify (loop)", 5000, "1,000 in ≤5 s"}, {"addonpack config defaults, verified cache warm (loop)", 1000, "1,000 cached in ≤1 s"},
		{"addonpack verify REF... (one process)", 5000, "1,000 in ≤5 s"}, {"addonpack verify REF... (one process, verified cache warm)", 1000, "1,000 cached in ≤1 s"}} {
		s := h.get("verify-N", v.tool, "distribution")
		if s == nil {
			continue
		}
		per := median(s.WallMS) / float64(verifyN)
		proj := per * 1000
		rows = append(rows, row{Workload: fmt.Sprintf("verify %d, extrapolated to 1,000", verifyN), Registry: "distribution", Addonpack: v.tool,
			APms: proj, APRSSMiB: maxRSSMiB(s), Target: v.target, Ratio: proj / v.limit,
			Verdict: verdict(proj <= v.limit, fmt.Sprintf("%.1f s projected (%.1f ms each)", proj/1000, per))})
	}
	for _, k := range h.order {
		s := h.results[k]
		if !strings.HasPrefix(s.Workload, "huge-1GB") {
			continue
		}
		rss := maxRSSMiB(s)
		r := row{Workload: s.Workload, Registry: s.Registry, Addonpack: s.Tool, APms: median(s.WallMS), APRSSMiB: rss, Target: "peak RSS ≤128 MiB"}
		if strings.Contains(s.Tool, "peer") {
			r.Addonpack, r.Peer, r.Peerms, r.PeerRSS, r.APms, r.APRSSMiB = "", s.Tool, r.APms, rss, 0, 0
			r.Verdict = "(info)"
		} else {
			r.Verdict = verdict(rss <= 128 && !strings.Contains(s.Tool, "FAILED"), fmt.Sprintf("%.0f MiB = %.1fx the limit", rss, rss/128))
		}
		rows = append(rows, r)
	}
	return rows
}

func verdict(ok bool, detail string) string {
	if ok {
		return "MET (" + detail + ")"
	}
	return "NOT MET (" + detail + ")"
}

func printTable(w io.Writer, rows []row) {
	fmt.Fprintf(w, "\n| workload | registry | addonpack | median ms (min–max) | peer / baseline | median ms (min–max) | ratio | target | verdict | peak RSS MiB (ap / peer) |\n")
	fmt.Fprintf(w, "|---|---|---|---:|---|---:|---:|---|---|---|\n")
	num := func(v float64) string {
		if v == 0 {
			return "–"
		}
		return fmt.Sprintf("%.0f", v)
	}
	withRange := func(v float64, rg string) string {
		if v == 0 || rg == "" {
			return num(v)
		}
		return num(v) + " (" + rg + ")"
	}
	for _, r := range rows {
		ratio := "–"
		if r.Peerms > 0 && r.APms > 0 {
			ratio = fmt.Sprintf("%.2f", r.Ratio)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |\n", r.Workload, r.Registry, r.Addonpack, withRange(r.APms, r.APRange),
			r.Peer, withRange(r.Peerms, r.PeerRange), ratio, r.Target, r.Verdict, num(r.APRSSMiB), num(r.PeerRSS))
	}
}

// ---- misc ----

func repoOf(ref string) string {
	if i := strings.Index(ref, "@"); i >= 0 {
		return ref[:i]
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[:i]
	}
	return ref
}

func uptime() string {
	out, err := exec.Command("uptime").Output()
	if err != nil {
		return loadavg()
	}
	return strings.TrimSpace(string(out))
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " / ")
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[addonbench %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
