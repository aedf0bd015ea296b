// Command benchcompare runs the same workloads with two addonpack binaries,
// interleaved (the order alternates every repetition, each repetition into
// fresh repositories), and prints the median wall and CPU time (user+system,
// from the child's rusage) of each side with the new/old ratio, and the load
// average before and after: the machine may be shared, and the CPU medians
// move less with it than the wall ones. `make bench-compare REV=<rev>`
// (bench/compare.sh) builds the two binaries and runs it.
//
//	benchcompare -old BIN -new BIN [-reps N] [-large=false] [-work DIR] [-registry HOST]
//
// The workloads run against the new binary's embedded registry, or against
// the registry at -registry (e.g. a CNCF distribution on loopback, where
// each request costs more).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/addonpack/addonpack/bench/gen"
)

type side struct{ name, bin string }

// sample is one run: wall and CPU time.
type sample struct{ wall, cpu time.Duration }

func main() {
	oldBin := flag.String("old", "", "the old addonpack binary")
	newBin := flag.String("new", "", "the new addonpack binary")
	reps := flag.Int("reps", 5, "repetitions of each workload per side")
	large := flag.Bool("large", true, "include the large add-on's build (~43 MB of CRDs)")
	work := flag.String("work", "", "work directory (default: a new temporary one, removed afterwards)")
	registry := flag.String("registry", "", "a running registry's host:port to use instead of the new binary's embedded one")
	flag.Parse()
	if *oldBin == "" || *newBin == "" {
		fmt.Fprintln(os.Stderr, "usage: benchcompare -old BIN -new BIN [-reps N] [-large=false] [-work DIR] [-registry HOST]")
		os.Exit(2)
	}
	if err := run(*oldBin, *newBin, *reps, *large, *work, *registry); err != nil {
		fmt.Fprintln(os.Stderr, "benchcompare:", err)
		os.Exit(1)
	}
}

func run(oldBin, newBin string, reps int, large bool, work, registry string) error {
	if work == "" {
		d, err := os.MkdirTemp("", "benchcompare-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	}
	sides := []side{{"old", oldBin}, {"new", newBin}}
	env := append(os.Environ(), "COSIGN_PASSWORD=bench", "HOME="+work, "XDG_CONFIG_HOME="+filepath.Join(work, "config"))
	small := filepath.Join(work, "small")
	if _, err := gen.Write(small, gen.Small("small", 1)); err != nil {
		return err
	}
	big := filepath.Join(work, "large")
	if large {
		if _, err := gen.Write(big, gen.Large()); err != nil {
			return err
		}
	}
	key := filepath.Join(work, "bench")
	if _, err := exe(env, newBin, "keygen", "--output-key-prefix", key); err != nil {
		return err
	}
	host := registry
	if host == "" {
		h, stop, err := serve(newBin)
		if err != nil {
			return err
		}
		defer stop()
		host = h
	}
	// Each run pushes to repositories of its own (a registry given with
	// -registry may hold earlier runs').
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)

	type workload struct {
		name string
		args func(s side, i int) []string
	}
	ref := func(s side, i int) string { return fmt.Sprintf("%s/bc%s/%s-%d/small:1.0.0", host, stamp, s.name, i) }
	out := func(s side, i int) string { return filepath.Join(work, "out", fmt.Sprintf("%s-%d", s.name, i)) }
	verified := []string{"--key", key + ".pub", "--require-provenance", "--no-cache"}
	workloads := []workload{
		{"build small", func(side, int) []string { return []string{"build", small, "--no-cache"} }},
		{"push small, signed", func(s side, i int) []string {
			return []string{"push", small, ref(s, i), "--key", key + ".key", "--no-cache"}
		}},
		{"verify small", func(s side, i int) []string { return append([]string{"verify", ref(s, i)}, verified...) }},
		{"pull small --require-provenance", func(s side, i int) []string {
			return append([]string{"pull", ref(s, i), "-o", out(s, i)}, verified...)
		}},
		{"render small", func(s side, i int) []string {
			return []string{"render", ref(s, i), "--key", key + ".pub", "--no-cache"}
		}},
	}
	if large {
		workloads = append(workloads, workload{"build large", func(side, int) []string { return []string{"build", big, "--no-cache"} }})
	}
	before := loadavg()
	fmt.Printf("old: %s\nnew: %s\nregistry: %s\nload before: %s\n\n", oldBin, newBin, host, before)
	fmt.Printf("%-34s %12s %12s %7s   %12s %12s %7s\n", "workload (medians)", "old wall", "new wall", "ratio", "old cpu", "new cpu", "ratio")
	for _, w := range workloads {
		got := map[string][]sample{}
		for i := 0; i < reps; i++ {
			order := sides
			if i%2 == 1 {
				order = []side{sides[1], sides[0]}
			}
			for _, s := range order {
				smp, err := exe(env, s.bin, w.args(s, i)...)
				if err != nil {
					return fmt.Errorf("%s (%s): %w", w.name, s.name, err)
				}
				got[s.name] = append(got[s.name], smp)
			}
		}
		ow, oc := medians(got["old"])
		nw, nc := medians(got["new"])
		fmt.Printf("%-34s %12s %12s %6.2f×   %12s %12s %6.2f×\n", w.name, ms(ow), ms(nw), ratio(nw, ow), ms(oc), ms(nc), ratio(nc, oc))
	}
	fmt.Printf("\nload before: %s\nload after:  %s\n%d repetitions per side, interleaved\n", before, loadavg(), reps)
	return nil
}

// exe runs bin with args and returns its wall and CPU time.
func exe(env []string, bin string, args ...string) (sample, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var errb strings.Builder
	cmd.Stderr = &errb
	t0 := time.Now()
	err := cmd.Run()
	s := sample{wall: time.Since(t0)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if err != nil {
		return s, fmt.Errorf("%s %s: %w\n%s", filepath.Base(bin), strings.Join(args, " "), err, errb.String())
	}
	return s, nil
}

// serve starts `addonpack registry serve` on a free loopback port.
func serve(bin string) (string, func(), error) {
	cmd := exec.Command(bin, "registry", "serve", "--addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, addr, ok := strings.Cut(sc.Text(), "listening on http://"); ok {
			go func() {
				for sc.Scan() {
				}
			}()
			return strings.TrimSpace(addr), stop, nil
		}
	}
	stop()
	return "", nil, fmt.Errorf("registry serve did not say where it listens")
}

func medians(s []sample) (wall, cpu time.Duration) {
	w := make([]time.Duration, len(s))
	c := make([]time.Duration, len(s))
	for i, x := range s {
		w[i], c[i] = x.wall, x.cpu
	}
	slices.Sort(w)
	slices.Sort(c)
	return w[len(w)/2], c[len(c)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
