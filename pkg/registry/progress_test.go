package registry

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/opencontainers/go-digest"
)

// tally is a ProgressFunc that records every transfer and its bytes.
type tally struct {
	mu     sync.Mutex
	meters []*countMeter
}

type countMeter struct {
	t     Transfer
	mu    sync.Mutex
	n     int64
	ended int
	err   error
}

func (m *countMeter) Add(n int64) { m.mu.Lock(); m.n += n; m.mu.Unlock() }
func (m *countMeter) Done(err error) {
	m.mu.Lock()
	m.ended++
	m.err = err
	m.mu.Unlock()
}

func (ta *tally) start(t Transfer) Meter {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	m := &countMeter{t: t}
	ta.meters = append(ta.meters, m)
	return m
}

// byDigest returns the one meter of d in the direction asked.
func (ta *tally) byDigest(t *testing.T, d digest.Digest, upload bool) *countMeter {
	t.Helper()
	var found *countMeter
	for _, m := range ta.meters {
		if m.t.Descriptor.Digest == d && m.t.Upload == upload {
			if found != nil {
				t.Fatalf("blob %s reported twice (upload %v)", d, upload)
			}
			found = m
		}
	}
	if found == nil {
		t.Fatalf("blob %s not reported (upload %v)", d, upload)
	}
	return found
}

func TestProgressCountsBlobs(t *testing.T) {
	host := startRegistry(t, nil)
	var ta tally
	c := newTestClient(t, Options{Progress: ta.start})
	ctx := t.Context()
	big := strings.Repeat("0123456789abcdef", 64<<10) // 1 MiB
	a := buildArtifact(t, "progress", big, "small layer")
	ref := mustParse(t, host+"/org/addon:v1")

	if _, err := c.Push(ctx, a.store, a.root, ref); err != nil {
		t.Fatalf("Push: %v", err)
	}
	for _, d := range append(a.layers, a.config) {
		m := ta.byDigest(t, d.Digest, true)
		if m.n != d.Size || m.ended != 1 || m.err != nil || m.t.Repository != host+"/org/addon" {
			t.Errorf("upload of %s: counted %d of %d bytes, ended %d times (%v), repository %q", d.Digest, m.n, d.Size, m.ended, m.err, m.t.Repository)
		}
	}
	for _, m := range ta.meters {
		if m.t.Descriptor.Digest == a.root.Digest {
			t.Errorf("the manifest was reported as a blob transfer: %+v", m.t)
		}
	}

	// A second push finds every blob in the registry: nothing moves.
	before := len(ta.meters)
	if _, err := c.Push(ctx, a.store, a.root, mustParse(t, host+"/org/addon:v2")); err != nil {
		t.Fatalf("second Push: %v", err)
	}
	if len(ta.meters) != before {
		t.Errorf("a push of blobs the registry has reported %d transfers", len(ta.meters)-before)
	}

	var buf bytes.Buffer
	layer := a.layers[0]
	if err := c.FetchBlob(ctx, ref, layer, &buf); err != nil {
		t.Fatalf("FetchBlob: %v", err)
	}
	m := ta.byDigest(t, layer.Digest, false)
	if m.n != layer.Size || m.ended != 1 || m.err != nil || buf.Len() != int(layer.Size) {
		t.Errorf("download: counted %d of %d bytes, ended %d times (%v)", m.n, layer.Size, m.ended, m.err)
	}

	// A failed download ends its meter with the error.
	wrong := layer
	wrong.Digest = digest.FromString("not this")
	err := c.FetchBlob(ctx, ref, wrong, &bytes.Buffer{})
	if m := ta.byDigest(t, wrong.Digest, false); err == nil || m.ended != 1 || !errors.Is(m.err, ErrNotFound) {
		t.Errorf("failed download: err %v, meter ended %d times with %v", err, m.ended, m.err)
	}
}

func TestProgressIncompleteUpload(t *testing.T) {
	var ta tally
	c := &Client{opts: Options{Progress: ta.start}}
	a := buildArtifact(t, "x", "some bytes")
	src := meteredSource{ReadOnlyStorage: a.store, c: c, repo: "r/x"}
	rc, err := src.Fetch(t.Context(), a.layers[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rc.Read(make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	rc.Close()
	if m := ta.byDigest(t, a.layers[0].Digest, true); m.ended != 1 || !errors.Is(m.err, errIncomplete) || m.n != 4 {
		t.Errorf("upload closed after 4 bytes: %d counted, ended %d times with %v", m.n, m.ended, m.err)
	}
}
