package tufroot

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// maxDownload caps every file read, whatever length the metadata allows
// (go-tuf's largest default, for targets metadata; Sigstore's files are a
// few KiB).
const maxDownload = 5 << 20

// fetcher is go-tuf's Fetcher bound to ctx: each request ends with ctx or
// after the client's timeout, reads at most the length allowed, and
// reports transport failures as ErrUnreachable. HTTP statuses other than
// 200 are go-tuf's ErrDownloadHTTP, which the updater needs (a 404 for
// N+1.root.json means the root is current).
type fetcher struct {
	ctx       context.Context
	client    *http.Client
	userAgent string
	// last is the URL of the last file fetched whole, for messages: the
	// client downloads one file at a time.
	last string
}

func (f *fetcher) DownloadFile(url string, maxLength int64, _ time.Duration) ([]byte, error) {
	maxLength = min(maxLength, maxDownload)
	req, err := http.NewRequestWithContext(f.ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %w", ErrOptions, url, err)
	}
	if f.userAgent != "" {
		req.Header.Set("User-Agent", f.userAgent)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %w", ErrUnreachable, url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &metadata.ErrDownloadHTTP{StatusCode: resp.StatusCode, URL: url}
	}
	if resp.ContentLength > maxLength {
		return nil, &metadata.ErrDownloadLengthMismatch{Msg: fmt.Sprintf("%s: %d bytes, more than the %d allowed", url, resp.ContentLength, maxLength)}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxLength+1))
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %w", ErrUnreachable, url, err)
	}
	if int64(len(data)) > maxLength {
		return nil, &metadata.ErrDownloadLengthMismatch{Msg: fmt.Sprintf("%s: more than the %d bytes allowed", url, maxLength)}
	}
	f.last = url
	return data, nil
}
