// Package termprogress draws the CLI's progress on a terminal's stderr, as
// oras and docker do. It is the CLI's alone (pkg/ offers only callbacks:
// registry.Options.Progress, build's packing callback, verify's batch
// progress), kept apart from the verbs so that they stay flags, one library
// call, printing.
package termprogress

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/addonpack/addonpack/pkg/registry"
)

// Display draws long operations on stderr as oras and docker do: one line
// per blob moving (bytes and rate), one per activity (building, pulling,
// verifying many references). It draws only when stderr is a terminal, TERM
// is not "dumb" and --quiet is not set: never into CI logs, files or pipes.
//
// Every write of the command to stdout or stderr first pauses the display
// (results, messages and password prompts are never drawn over): lines
// still running are taken off and drawn again below the message as soon as
// they move or another starts. When the command returns, the display ends
// for good, running lines left as they were drawn.
type Display struct {
	out io.Writer // the terminal

	mu     sync.Mutex
	p      *mpb.Progress // the display drawn now, nil while paused
	gen    int           // counts displays, to tell a line's bar is current
	closed bool          // the command returned
	lines  map[*line]struct{}
	seq    int // lines started
}

// line is one line of the display, running until end; its bar is built
// again in each display it appears in.
type line struct {
	pr    *Display
	build func(*mpb.Progress) (*mpb.Bar, error)
	bar   *mpb.Bar // in display gen
	gen   int
	n     int64 // counted so far
	seq   int   // order of start
	ended bool
}

// New returns the display for a command writing messages to errw,
// or nil when nothing is to be drawn there. A terminal that reports no width
// (a pseudo-terminal nobody sized, as `script` makes without a terminal of
// its own) is not drawn on: mpb would draw nothing there but escape codes.
func New(errw io.Writer, getenv func(string) string, quiet bool) *Display {
	f, ok := errw.(interface{ Fd() uintptr })
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) || getenv("TERM") == "dumb" {
		return nil
	}
	if w, _, err := term.GetSize(int(f.Fd())); err != nil || w <= 0 {
		return nil
	}
	return &Display{out: errw, lines: map[*line]struct{}{}}
}

// start adds a line whose bar build makes; nil on a nil progress.
func (pr *Display) start(build func(*mpb.Progress) (*mpb.Bar, error)) *line {
	if pr == nil {
		return nil
	}
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.seq++
	l := &line{pr: pr, build: build, seq: pr.seq}
	pr.lines[l] = struct{}{}
	pr.barLocked(l)
	return l
}

// barLocked returns l's bar in the display drawn now, starting the display
// or building the bar when needed; nil once the command returned.
func (pr *Display) barLocked(l *line) *mpb.Bar {
	if pr.closed {
		return nil
	}
	if pr.p == nil {
		pr.p = mpb.New(mpb.WithOutput(pr.out), mpb.WithWidth(32))
		pr.gen++
		// The running lines, in the order they started, come back first.
		running := slices.SortedFunc(maps.Keys(pr.lines), func(a, b *line) int { return a.seq - b.seq })
		for _, r := range running {
			if r != l {
				pr.buildLocked(r)
			}
		}
	}
	return pr.buildLocked(l)
}

// buildLocked builds l's bar in the display drawn now unless it has one.
func (pr *Display) buildLocked(l *line) *mpb.Bar {
	if l.bar == nil || l.gen != pr.gen {
		b, err := l.build(pr.p)
		if err != nil {
			l.bar = nil
			return nil
		}
		l.bar, l.gen = b, pr.gen
		if l.n > 0 {
			b.SetCurrent(l.n)
		}
	}
	return l.bar
}

// add counts n more of l (bytes, references).
func (l *line) add(n int64) {
	l.running(func() {
		l.n += n
		if b := l.pr.barLocked(l); b != nil {
			b.SetCurrent(l.n)
		}
	})
}

// end ends l: complete, or aborted and left as drawn.
func (l *line) end(err error) {
	l.running(func() {
		l.ended = true
		delete(l.pr.lines, l)
		b := l.pr.barLocked(l)
		switch {
		case b == nil:
		case err != nil:
			b.Abort(false)
		default:
			b.SetTotal(-1, true)
		}
	})
}

// running calls fn with the display locked, unless l is nil or ended.
func (l *line) running(fn func()) {
	if l == nil {
		return
	}
	l.pr.mu.Lock()
	defer l.pr.mu.Unlock()
	if !l.ended {
		fn()
	}
}

// Pause ends the display drawn now, if any, taking its running lines off
// it; they are drawn again in the next display. Safe on nil.
func (pr *Display) Pause() {
	pr.finish(false)
}

// Stop ends the display for good; running lines are left as drawn.
func (pr *Display) Stop() {
	pr.finish(true)
}

func (pr *Display) finish(closed bool) {
	if pr == nil {
		return
	}
	pr.mu.Lock()
	pr.closed = pr.closed || closed
	p := pr.p
	pr.p = nil
	for l := range pr.lines {
		if l.bar != nil && l.gen == pr.gen {
			l.bar.Abort(!closed)
		}
	}
	pr.mu.Unlock()
	if p != nil {
		p.Wait()
	}
}

// Transfer is a registry.ProgressFunc: one line per blob, with its size,
// the bytes moved and the average rate.
func (pr *Display) Transfer(t registry.Transfer) registry.Meter {
	verb := "Downloading"
	if t.Upload {
		verb = "Uploading  "
	}
	l := pr.start(byteBar(fmt.Sprintf("%s %s", verb, shortDigest(t.Descriptor.Digest.Encoded())), t.Descriptor.Size))
	if l == nil {
		return nil
	}
	return lineMeter{l}
}

// byteBar builds a line of total bytes: counted so far, and the average rate.
func byteBar(name string, total int64) func(*mpb.Progress) (*mpb.Bar, error) {
	return func(p *mpb.Progress) (*mpb.Bar, error) {
		return p.Add(total, mpb.BarStyle().Build(),
			mpb.PrependDecorators(decor.Name(name, decor.WCSyncSpaceR)),
			mpb.AppendDecorators(
				decor.Counters(decor.SizeB1024(0), "% .1f / % .1f", spaced),
				decor.OnComplete(decor.AverageSpeed(decor.SizeB1024(0), "% .1f", spaced), " done"),
			))
	}
}

// Packing is a build.Options.Progress drawing the bytes of a tree read as
// it is packed; nil when nothing is drawn.
func (pr *Display) Packing(label string) func(read, total int64) {
	if pr == nil {
		return nil
	}
	var (
		l    *line
		last int64
	)
	return func(read, total int64) {
		if l == nil {
			if l = pr.start(byteBar(label, total)); l == nil {
				return
			}
		}
		l.add(read - last)
		last = read
		if read >= total {
			l.end(nil)
		}
	}
}

// lineMeter is a registry.Meter drawn as a line.
type lineMeter struct{ l *line }

func (m lineMeter) Add(n int64)    { m.l.add(n) }
func (m lineMeter) Done(err error) { m.l.end(err) }

// Activity starts a line for work whose size is unknown (a spinner and the
// time elapsed) and returns the function that ends it.
func (pr *Display) Activity(label string) (done func(error)) {
	since := time.Now()
	l := pr.start(func(p *mpb.Progress) (*mpb.Bar, error) {
		return p.Add(0, mpb.SpinnerStyle().PositionLeft().Build(),
			mpb.PrependDecorators(decor.Name(label, decor.WCSyncSpaceR)),
			mpb.AppendDecorators(decor.NewElapsed(decor.ET_STYLE_GO, since, spaced)),
			mpb.BarFillerClearOnComplete())
	})
	return l.end
}

// Counter starts a line counting total items and returns the function that
// counts one more; the line ends with the last.
func (pr *Display) Counter(label string, total int) (one func()) {
	l := pr.start(func(p *mpb.Progress) (*mpb.Bar, error) {
		return p.Add(int64(total), mpb.BarStyle().Build(),
			mpb.PrependDecorators(decor.Name(label, decor.WCSyncSpaceR)),
			mpb.AppendDecorators(decor.CountersNoUnit("%d / %d", spaced)))
	})
	var mu sync.Mutex
	left := total
	return func() {
		l.add(1)
		mu.Lock()
		left--
		last := left == 0
		mu.Unlock()
		if last {
			l.end(nil)
		}
	}
}

// spaced is the layout of the decorators after a bar: one space before each,
// no column shared with other lines (lines differ in what follows the bar).
var spaced = decor.WC{C: decor.DextraSpace}

// shortDigest is the first 12 hex digits of a digest, as docker shows them.
func shortDigest(hex string) string {
	if len(hex) > 12 {
		return hex[:12]
	}
	return hex
}

// pauseFirst is a command's stdout or stderr: it ends the progress display
// drawn now before a result or message is written.
type pauseFirst struct {
	w  io.Writer
	pr *Display
}

func (s pauseFirst) Write(p []byte) (int, error) {
	s.pr.Pause()
	return s.w.Write(p)
}

// PauseFirst returns w writing through d: the display drawn now is ended
// before anything is written, so results, messages and password prompts are
// never drawn over. With a nil d, w itself.
func PauseFirst(w io.Writer, d *Display) io.Writer {
	if d == nil {
		return w
	}
	return pauseFirst{w: w, pr: d}
}
