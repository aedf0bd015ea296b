package testregistry

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// faultBlob pushes a blob through a fault-free client path: faults only
// match blob GETs in these tests.
func faultBlob(t *testing.T, reg *Registry) (string, []byte) {
	t.Helper()
	content := bytes.Repeat([]byte("0123456789"), 1000)
	return reg.URL() + "/v2/r/blobs/" + pushBlob(t, reg, "r", content), content
}

func TestFaultStatusAndRetryAfter(t *testing.T) {
	reg := New(t, WithFaults(Faults{Rules: []FaultRule{
		{Match: MatchBlobGET(), Nth: 1, Kind: Status5xx, Status: http.StatusBadGateway},
		{Match: MatchBlobGET(), Nth: 2, Kind: TooManyRequests, RetryAfter: 1500 * time.Millisecond},
	}}))
	url, content := faultBlob(t, reg)
	resp, body := do(t, reg.Client(), "GET", url, nil)
	expect(t, resp, body, http.StatusBadGateway, "UNAVAILABLE")
	resp, body = do(t, reg.Client(), "GET", url, nil)
	expect(t, resp, body, http.StatusTooManyRequests, CodeTooManyRequests)
	if got := resp.Header.Get("Retry-After"); got != "2" {
		t.Fatalf("Retry-After %q, want 2 (rounded up)", got)
	}
	resp, body = do(t, reg.Client(), "GET", url, nil)
	expect(t, resp, body, http.StatusOK, "")
	if !bytes.Equal(body, content) {
		t.Fatal("third GET should be served normally")
	}
}

func TestFaultFractionIsDeterministic(t *testing.T) {
	run := func() []int {
		reg := New(t, WithFaults(Faults{Seed: 42, Rules: []FaultRule{
			{Match: MatchBlobGET(), Fraction: 0.5, Kind: Status5xx},
		}}))
		url, _ := faultBlob(t, reg)
		var statuses []int
		for range 20 {
			resp, _ := do(t, reg.Client(), "GET", url, nil)
			statuses = append(statuses, resp.StatusCode)
		}
		return statuses
	}
	a, b := run(), run()
	failed := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("runs differ at request %d: %v vs %v", i, a, b)
		}
		if a[i] == http.StatusServiceUnavailable {
			failed++
		}
	}
	if failed == 0 || failed == len(a) {
		t.Fatalf("fraction 0.5 failed %d of %d requests", failed, len(a))
	}
}

func TestFaultTruncateAndReset(t *testing.T) {
	tests := []struct {
		kind    FaultKind
		wantErr func(error) bool
	}{
		{Truncate, func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }},
		{ResetMidway, func(err error) bool {
			return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF)
		}},
	}
	for _, tt := range tests {
		t.Run(map[FaultKind]string{Truncate: "Truncate", ResetMidway: "ResetMidway"}[tt.kind], func(t *testing.T) {
			reg := New(t, WithFaults(Faults{Rules: []FaultRule{{Match: MatchBlobGET(), Nth: 1, Kind: tt.kind}}}))
			url, content := faultBlob(t, reg)
			resp, err := reg.Client().Get(url)
			if err != nil {
				t.Fatalf("headers should arrive: %v", err)
			}
			if resp.StatusCode != http.StatusOK || resp.ContentLength != int64(len(content)) {
				t.Fatalf("status %d, Content-Length %d", resp.StatusCode, resp.ContentLength)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil || !tt.wantErr(err) {
				t.Fatalf("read error %v, want truncation/reset", err)
			}
			if len(got) >= len(content) || !bytes.Equal(got, content[:len(got)]) {
				t.Fatalf("got %d bytes, want a correct prefix shorter than %d", len(got), len(content))
			}
			// The handler may still be finishing after the client saw the break.
			logged := waitLog(t, reg, func(r Request) bool { return r.Method == "GET" && strings.Contains(r.Path, "/blobs/") })
			if logged.Bytes != int64(len(content)/2) {
				t.Fatalf("log recorded %d bytes, want %d", logged.Bytes, len(content)/2)
			}
			// The next request is served normally.
			resp2, body := do(t, reg.Client(), "GET", url, nil)
			expect(t, resp2, body, http.StatusOK, "")
		})
	}
}

func TestFaultWrongBytes(t *testing.T) {
	reg := New(t, WithFaults(Faults{Rules: []FaultRule{{Match: MatchBlobGET(), Kind: WrongBytes}}}))
	url, content := faultBlob(t, reg)
	resp, body := do(t, reg.Client(), "GET", url, nil)
	expect(t, resp, body, http.StatusOK, "")
	if len(body) != len(content) || bytes.Equal(body, content) {
		t.Fatalf("want %d different bytes, got %d (equal=%v)", len(content), len(body), bytes.Equal(body, content))
	}
	if sha256Digest(body) == resp.Header.Get("Docker-Content-Digest") {
		t.Fatal("damaged body still matches its digest")
	}
}

func TestFaultStall(t *testing.T) {
	t.Run("until the client gives up", func(t *testing.T) {
		reg := New(t, WithFaults(Faults{Rules: []FaultRule{{Match: MatchManifestGET(), Kind: Stall}}}))
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", reg.URL()+"/v2/r/manifests/latest", nil)
		start := time.Now()
		_, err := reg.Client().Do(req)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err %v, want deadline exceeded", err)
		}
		if time.Since(start) < 200*time.Millisecond {
			t.Fatal("request returned before the client deadline")
		}
	})
	t.Run("for a duration", func(t *testing.T) {
		reg := New(t, WithFaults(Faults{Rules: []FaultRule{{Match: MatchPath("/tags/list"), Kind: Stall, Duration: 150 * time.Millisecond}}}))
		start := time.Now()
		resp, body := do(t, reg.Client(), "GET", reg.URL()+"/v2/none/tags/list", nil)
		expect(t, resp, body, http.StatusNotFound, CodeNameUnknown)
		if time.Since(start) < 150*time.Millisecond {
			t.Fatal("response was not delayed")
		}
	})
}

func TestFaultRedirectBlobDropsCredentials(t *testing.T) {
	reg := New(t, WithBasicAuth("user", "secret"), WithFaults(Faults{Rules: []FaultRule{{Match: MatchBlobGET(), Kind: RedirectBlob}}}))
	content := []byte("redirected content")
	d := sha256Digest(content)
	req, _ := http.NewRequest("POST", reg.URL()+"/v2/r/blobs/uploads/?digest="+d, bytes.NewReader(content))
	req.SetBasicAuth("user", "secret")
	resp, err := reg.Client().Do(req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("push: %v %v", err, resp)
	}
	resp.Body.Close()

	// Go's client drops Authorization on redirects to another host; the
	// blob host records what it received.
	req, _ = http.NewRequest("GET", reg.URL()+"/v2/r/blobs/"+d, nil)
	req.SetBasicAuth("user", "secret")
	resp, err = reg.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, content) {
		t.Fatalf("status %d body %q", resp.StatusCode, body)
	}
	if !strings.HasPrefix(resp.Request.URL.String(), reg.RedirectURL()) {
		t.Fatalf("final URL %s is not on the blob host %s", resp.Request.URL, reg.RedirectURL())
	}
	log := reg.RedirectLog()
	if len(log) != 1 || log[0].Path != "/blobs/"+d || log[0].Status != http.StatusOK {
		t.Fatalf("blob host log %+v", log)
	}
	if log[0].Authorization != "" {
		t.Fatalf("credentials forwarded to the blob host: %q", log[0].Authorization)
	}
	var redirected bool
	for _, r := range reg.Log() {
		if r.Status == http.StatusFound && r.Authorization != "" {
			redirected = true
		}
	}
	if !redirected {
		t.Fatalf("main host log has no authenticated 302: %+v", reg.Log())
	}
}

// waitLog polls the request log for an entry matching pred.
func waitLog(t *testing.T, reg *Registry, pred func(Request) bool) Request {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		for _, r := range reg.Log() {
			if pred(r) {
				return r
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no matching request in log %+v", reg.Log())
	return Request{}
}

func TestFaultStallMidway(t *testing.T) {
	reg := New(t, WithFaults(Faults{Rules: []FaultRule{{Match: MatchBlobGET(), Nth: 1, Kind: StallMidway}}}))
	url, content := faultBlob(t, reg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := reg.Client().Do(req)
	if err != nil {
		t.Fatalf("headers should arrive: %v", err)
	}
	defer resp.Body.Close()
	if resp.ContentLength != int64(len(content)) {
		t.Fatalf("Content-Length %d, want %d", resp.ContentLength, len(content))
	}
	half := make([]byte, len(content)/2)
	if _, err := io.ReadFull(resp.Body, half); err != nil || !bytes.Equal(half, content[:len(half)]) {
		t.Fatalf("first half: %v", err)
	}
	// Then nothing: a read blocks until the client gives up.
	got := make(chan error, 1)
	go func() { _, err := resp.Body.Read(make([]byte, 1)); got <- err }()
	select {
	case err := <-got:
		t.Fatalf("read returned %v before the client gave up", err)
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	if err := <-got; err == nil {
		t.Fatal("read after cancel succeeded")
	}
	// The next request is served normally.
	resp2, body := do(t, reg.Client(), "GET", url, nil)
	expect(t, resp2, body, http.StatusOK, "")
}
