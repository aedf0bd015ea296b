package testregistry

import (
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FaultKind selects what an injected fault does.
type FaultKind int

const (
	// Status5xx answers with FaultRule.Status (default 503) and an error body.
	Status5xx FaultKind = iota + 1
	// TooManyRequests answers 429 TOOMANYREQUESTS with a Retry-After header
	// of FaultRule.RetryAfter rounded up to whole seconds (default 1).
	TooManyRequests
	// ResetMidway sends the headers (with the full Content-Length) and half
	// of the body, then hijacks the connection and resets it (RST).
	ResetMidway
	// Stall holds the request for FaultRule.Duration, then serves it
	// normally; with Duration 0 it holds until the client gives up (the
	// request context ends) or the registry stops.
	Stall
	// Truncate sends the full Content-Length but only half of the body, then
	// ends the response; the server closes the connection.
	Truncate
	// WrongBytes serves a body of the right length with every byte inverted,
	// so a blob no longer matches its Docker-Content-Digest.
	WrongBytes
	// StallMidway sends the headers (with the full Content-Length) and half
	// of the body, flushes them, then sends nothing more until the client
	// gives up (the request context ends), the registry stops, or
	// FaultRule.Duration passes (then the connection is closed, the body
	// left short): a registry that stalls in the middle of a blob.
	StallMidway
	// RedirectBlob answers blob GET/HEAD requests with 302 to a second
	// in-process host, http(s)://localhost:PORT (a different host name from
	// 127.0.0.1), that serves the blob without checking credentials and
	// records the Authorization header it received (Registry.RedirectLog).
	// Other requests are not affected. Only available through New.
	RedirectBlob
)

// Faults describes deterministic fault injection: the same Seed and the same
// sequence of requests inject the same faults.
type Faults struct {
	Seed  int64
	Rules []FaultRule
}

// FaultRule injects Kind into requests selected by Match and then by Nth or
// Fraction. With neither Nth nor Fraction set, every matching request is hit.
// Rules are evaluated in order and every matching rule counts the request;
// the first rule that fires wins.
type FaultRule struct {
	Match      func(r *http.Request) bool // nil matches every request
	Nth        int                        // fire on the Nth matching request (1-based)
	Fraction   float64                    // fire on this fraction of matching requests (seeded)
	Kind       FaultKind
	Status     int           // Status5xx: status code (default 503)
	RetryAfter time.Duration // TooManyRequests: Retry-After (default 1s)
	Duration   time.Duration // Stall, StallMidway: how long to hold (0: until the request ends)
}

// MatchBlobGET matches GET requests for blob content.
func MatchBlobGET() func(*http.Request) bool {
	return func(r *http.Request) bool { return matchRoute(r, http.MethodGet, routeBlob) }
}

// MatchManifestGET matches GET requests for manifests.
func MatchManifestGET() func(*http.Request) bool {
	return func(r *http.Request) bool { return matchRoute(r, http.MethodGet, routeManifest) }
}

// MatchManifestPUT matches manifest pushes.
func MatchManifestPUT() func(*http.Request) bool {
	return func(r *http.Request) bool { return matchRoute(r, http.MethodPut, routeManifest) }
}

// MatchUpload matches every blob upload request (POST, PATCH, PUT, GET and
// DELETE on upload sessions).
func MatchUpload() func(*http.Request) bool {
	return func(r *http.Request) bool {
		rt, ok := parseRoute(r.URL.Path)
		return ok && (rt.kind == routeUploadStart || rt.kind == routeUpload)
	}
}

// MatchPath matches requests whose URL path contains substring.
func MatchPath(substring string) func(*http.Request) bool {
	return func(r *http.Request) bool { return strings.Contains(r.URL.Path, substring) }
}

// MatchMethod matches requests with the given method.
func MatchMethod(method string) func(*http.Request) bool {
	return func(r *http.Request) bool { return r.Method == method }
}

func matchRoute(r *http.Request, method string, kind routeKind) bool {
	if r.Method != method {
		return false
	}
	rt, ok := parseRoute(r.URL.Path)
	return ok && rt.kind == kind
}

// faultState counts matches and draws the seeded random numbers.
type faultState struct {
	mu     sync.Mutex
	rules  []FaultRule
	counts []int
	rng    *rand.Rand
	done   chan struct{} // closed when the registry stops; ends stalls
	once   sync.Once
}

// stop releases stalled requests.
func (fs *faultState) stop() { fs.once.Do(func() { close(fs.done) }) }

func newFaultState(f Faults) *faultState {
	seed := uint64(f.Seed)
	return &faultState{
		rules:  f.Rules,
		counts: make([]int, len(f.Rules)),
		rng:    rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		done:   make(chan struct{}),
	}
}

// pick returns the rule that fires for r, if any.
func (fs *faultState) pick(r *http.Request) (FaultRule, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var fired *FaultRule
	for i := range fs.rules {
		rule := &fs.rules[i]
		if rule.Match != nil && !rule.Match(r) {
			continue
		}
		fs.counts[i]++
		hit := rule.Nth == 0 && rule.Fraction == 0
		if rule.Nth > 0 && fs.counts[i] == rule.Nth {
			hit = true
		}
		if rule.Fraction > 0 && fs.rng.Float64() < rule.Fraction {
			hit = true
		}
		if hit && fired == nil {
			fired = rule
		}
	}
	if fired == nil {
		return FaultRule{}, false
	}
	return *fired, true
}

// apply injects a fault into r if a rule fires; it reports whether the
// response has been handled.
func (fs *faultState) apply(h *handler, w http.ResponseWriter, r *http.Request) bool {
	rule, ok := fs.pick(r)
	if !ok {
		return false
	}
	switch rule.Kind {
	case Status5xx:
		status := rule.Status
		if status == 0 {
			status = http.StatusServiceUnavailable
		}
		writeError(w, r, status, "UNAVAILABLE", "injected fault", nil)
		return true
	case TooManyRequests:
		secs := int(math.Ceil(rule.RetryAfter.Seconds()))
		if secs <= 0 {
			secs = 1
		}
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeError(w, r, http.StatusTooManyRequests, CodeTooManyRequests, "injected fault: too many requests", nil)
		return true
	case Stall:
		return fs.stall(r, rule.Duration)
	case ResetMidway, Truncate, WrongBytes:
		serveDamaged(h, w, r, rule.Kind)
		return true
	case StallMidway:
		serveDamaged(h, w, r, rule.Kind)
		fs.stall(r, rule.Duration)
		return true
	case RedirectBlob:
		return h.redirectBlob(w, r)
	}
	return false
}

// stall waits; it reports true (handled, nothing written) when the request
// or the registry ended first.
func (fs *faultState) stall(r *http.Request, d time.Duration) bool {
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return false
	case <-r.Context().Done():
		return true
	case <-fs.done:
		return true
	}
}
