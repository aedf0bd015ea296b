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
//	BENCH_VERIFY_N    signed add-ons verified in one `addonpack verify REF...` call (default 1000)
//	BENCH_VERIFY_FORMAT where their signatures are stored: bundle (push's default) or classic
//	BENCH_ONLY=LIST   run only these workloads: publish (small and large, publish
//	                  and consume), batch, verify, huge (e.g. BENCH_ONLY=verify)
//	BENCH_HUGE=1      also generate a ~1 GB add-on and measure peak RSS of build/push/pull
//	BENCH_LARGE=0     skip the large add-on (its kustomize check takes about a minute)
//	BENCH_WORK        work directory (default a new temporary directory, removed at the end)
//	BENCH_OUT         JSON output (default bench/results/latest.json)
//	ADDONPACK_TOOLS   where oras and cosign live (default ~/.cache/addonpack-tools)
//	ADDONPACK_DOCKER_REGISTRY  the distribution binary (default /usr/bin/docker-registry)
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/addonpack/addonpack/bench/gen"
	"github.com/addonpack/addonpack/pkg/sign"
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
	kustomize                           string // "" when not installed: no validated peer row
	key, pub, pred                      string
	env                                 []string
	reps                                int
	verifyFormat                        sign.Format // where verify-N's signatures are stored
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
	verifyN := envInt("BENCH_VERIFY_N", 1000)
	vf, err := sign.ParseFormat(cmp.Or(os.Getenv("BENCH_VERIFY_FORMAT"), string(sign.FormatBundle)))
	if err != nil || vf == sign.FormatBoth {
		return fmt.Errorf("BENCH_VERIFY_FORMAT=%q: want bundle or classic", os.Getenv("BENCH_VERIFY_FORMAT"))
	}
	h.verifyFormat = vf
	only := os.Getenv("BENCH_ONLY")
	runs := map[string]bool{"publish": true, "batch": true, "verify": true, "huge": os.Getenv("BENCH_HUGE") == "1"}
	if only != "" {
		runs = map[string]bool{}
		for _, w := range strings.Split(only, ",") {
			switch w {
			case "publish", "batch", "verify", "huge":
				runs[w] = true
			default:
				return fmt.Errorf("BENCH_ONLY=%q: want a comma-separated list of publish, batch, verify, huge", only)
			}
		}
	}
	verifyOnly := only == "verify"
	huge := runs["huge"]
	doLarge := os.Getenv("BENCH_LARGE") != "0" && runs["publish"]
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
		if _, err := os.Stat(p); err != nil && !verifyOnly { // verify alone runs no peer
			return fmt.Errorf("%s missing: run bench/install-peers.sh (make bench does)", p)
		}
	}
	if p := filepath.Join(h.tools, "bin", "kustomize"); fileExists(p) {
		h.kustomize = p
	} else {
		h.notes = append(h.notes, "kustomize not in "+filepath.Dir(p)+": no validated peer pipeline (bench/install-peers.sh builds it)")
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
	tools := map[string][]string{"addonpack": {h.ap, "version"}, "oras": {h.oras, "version"}, "cosign": {h.cosign, "version"}}
	if h.kustomize != "" {
		tools["kustomize"] = []string{h.kustomize, "version"}
	}
	for name, args := range tools {
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
	registries := []registryUnderTest{{"distribution", dist}, {"testregistry", treg}}
	logf("distribution at %s, addonpack registry serve at %s", dist, treg)

	// BENCH_ONLY=verify skips every other workload.
	pcReps, batchReps := h.reps, h.reps
	if !runs["publish"] {
		pcReps = 0
	}
	if !runs["batch"] {
		batchReps = 0
	}

	// Small and large: publish then consume, per registry, interleaved.
	type addon struct{ name, dir string }
	addons := []addon{{"small", small}}
	if doLarge {
		addons = append(addons, addon{"large", large})
	}
	for rep := 0; rep < pcReps; rep++ {
		for _, reg := range registries {
			for _, a := range addons {
				if a.name == "large" && reg.name != "distribution" {
					continue // the large add-on runs on the primary registry only (time)
				}
				if err := h.publishConsume(rep, reg.name, reg.host, a.name, a.dir); err != nil {
					return err
				}
				if a.name == "large" {
					if err := h.apPublishOnly(rep, reg.name, reg.host, "large-unrendered", "large", largeU); err != nil {
						return err
					}
				}
			}
		}
		logf("rep %d/%d done (small+large), load %s", rep+1, h.reps, loadavg())
	}

	// Batch, on both registries: the sequential calls on distribution only
	// (time).
	for rep := 0; rep < batchReps; rep++ {
		for _, reg := range registries {
			if _, err := h.batch(rep, reg.name, reg.host, manyDirs); err != nil {
				return err
			}
		}
		logf("batch rep %d/%d done, load %s", rep+1, h.reps, loadavg())
	}
	// Verify, on both registries.
	if runs["verify"] {
		if err := h.verifyAll(context.Background(), registries, verifyN); err != nil {
			return err
		}
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
		"only":        only,
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

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
