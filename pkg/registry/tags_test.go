package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/addonpack/addonpack/testregistry"
)

func TestTagsReadsEveryPage(t *testing.T) {
	host := testregistry.New(t).Host()
	c := newTestClient(t, Options{})
	ctx := t.Context()
	a := buildArtifact(t, "a", "layer")
	want := []string{"1.13.0", "1.14.0", "1.15.0-rc.1", "1.15.3", "2.0.0", "2.0.0-alpha.1", "latest"}
	for _, tag := range want {
		if _, err := c.Push(ctx, a.store, a.root, mustParse(t, host+"/org/addon:"+tag)); err != nil {
			t.Fatal(err)
		}
	}
	for _, size := range []int{0, 1, 2, 3, 100} {
		got, err := c.Tags(ctx, mustParse(t, host+"/org/addon"), TagLimits{PageSize: size})
		if err != nil {
			t.Fatalf("page size %d: %v", size, err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("page size %d: tags = %v, want %v", size, got, want)
		}
	}
	_, err := c.Tags(ctx, mustParse(t, host+"/org/nothing"), TagLimits{})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), host+"/org/nothing") {
		t.Fatalf("unknown repository: %v", err)
	}
}

// hostileTags serves a tag list through page(n) (the n-th request) and counts
// the requests.
func hostileTags(t *testing.T, page func(n int) (tags []string, next string)) (host string, requests *atomic.Int64) {
	t.Helper()
	requests = &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			return
		}
		n := int(requests.Add(1))
		tags, next := page(n)
		if next != "" {
			w.Header().Set("Link", "<"+next+`>; rel="next"`)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"name": "org/addon", "tags": tags})
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), requests
}

var millionTags = sync.OnceValue(func() []string {
	tags := make([]string, 1_000_000)
	for i := range tags {
		tags[i] = "1." + strconv.Itoa(i) + ".0"
	}
	return tags
})

func TestTagsBoundedOnHostileRegistries(t *testing.T) {
	tests := []struct {
		name     string
		page     func(n int) ([]string, string)
		msg      string
		requests int64
	}{{
		name: "pagination link that loops",
		page: func(int) ([]string, string) {
			return []string{"1.0.0", "1.1.0"}, "/v2/org/addon/tags/list?last=1.1.0"
		},
		msg:      "more than 100 pages of tags",
		requests: DefaultMaxTagPages,
	}, {
		name: "a million tags in pages of a thousand",
		page: func(n int) ([]string, string) {
			tags := make([]string, 1000)
			for i := range tags {
				tags[i] = fmt.Sprintf("%d.%d.0", n, i)
			}
			return tags, "/v2/org/addon/tags/list?last=" + strconv.Itoa(n)
		},
		msg:      "more than 10000 tags",
		requests: 11,
	}, {
		name:     "a million tags in one page",
		page:     func(int) ([]string, string) { return millionTags(), "" },
		msg:      "larger than 4194304 bytes",
		requests: 1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host, requests := hostileTags(t, tt.page)
			c := newTestClient(t, Options{})
			start := time.Now()
			_, err := c.Tags(t.Context(), mustParse(t, host+"/org/addon"), TagLimits{})
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), host+"/org/addon") {
				t.Fatalf("err = %v, want ErrTooLarge naming the repository and %q", err, tt.msg)
			}
			if got := requests.Load(); got != tt.requests {
				t.Errorf("%d tag list requests, want %d", got, tt.requests)
			}
			t.Logf("failed after %v: %v", time.Since(start), err)
		})
	}
}
