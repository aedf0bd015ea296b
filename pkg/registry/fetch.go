package registry

import (
	"bytes"
	"context"
	_ "crypto/sha256" // register digest algorithms for go-digest
	_ "crypto/sha512"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// manifestAccept is the Accept header for manifest requests.
const manifestAccept = ocispec.MediaTypeImageManifest + ", " + ocispec.MediaTypeImageIndex + ", " +
	"application/vnd.docker.distribution.manifest.v2+json, " +
	"application/vnd.docker.distribution.manifest.list.v2+json"

// errNeedGET tells Resolve that HEAD was refused or incomplete.
var errNeedGET = errors.New("HEAD not usable, use GET")

// Resolve resolves ref once to a manifest descriptor: HEAD
// /v2/<repo>/manifests/<tag or digest>, falling back to a GET (bounded by
// MaxManifestSize, digest computed locally) when the registry refuses HEAD
// (405/501) or its answer lacks Content-Type, Content-Length or a usable
// Docker-Content-Digest. When ref has both a tag and a digest, the tag is
// resolved and must yield that digest (errdef.ErrDigestMismatch otherwise).
// A missing manifest or tag yields ErrNotFound naming ref.
func (c *Client) Resolve(ctx context.Context, ref Reference) (ocispec.Descriptor, error) {
	name := ref.String()
	target, err := ref.resolveTarget()
	if err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("resolve %s: %w", name, err)
	}
	repo, err := c.repository(ctx, ref)
	if err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("resolve %s: %w", name, err)
	}
	alg := digest.Canonical
	if ref.Digest != "" {
		alg = ref.Digest.Algorithm()
	}
	trusted := digest.Digest("")
	if ref.Tag == "" {
		trusted = ref.Digest // HEAD by digest: the request names the content
	}
	desc, err := c.headManifest(ctx, repo, target, alg, trusted)
	if errors.Is(err, errNeedGET) {
		desc, _, err = c.getManifest(ctx, repo, target, alg)
	}
	if err != nil {
		return ocispec.Descriptor{}, c.wrapErr("resolve", name, err)
	}
	if ref.Digest != "" && desc.Digest != ref.Digest {
		return ocispec.Descriptor{}, fmt.Errorf("resolve %s: %w: registry returned %s", name, errdef.ErrDigestMismatch, desc.Digest)
	}
	return desc, nil
}

func (c *Client) headManifest(ctx context.Context, repo *remote.Repository, target string, alg digest.Algorithm, trusted digest.Digest) (ocispec.Descriptor, error) {
	resp, err := c.get(ctx, repo, http.MethodHead, "manifests", target, manifestAccept)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return ocispec.Descriptor{}, errNeedGET
	default:
		return ocispec.Descriptor{}, parseErrorResponse(resp)
	}
	mt := mediaType(resp.Header)
	dg, err := headerDigestOf(resp.Header)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	if dg == "" || dg.Algorithm() != alg {
		dg = trusted
	}
	if mt == "" || resp.ContentLength < 0 || dg == "" {
		return ocispec.Descriptor{}, errNeedGET
	}
	return ocispec.Descriptor{MediaType: mt, Digest: dg, Size: resp.ContentLength}, nil
}

// getManifest GETs the manifest named by target (a tag or a digest), bounded
// by MaxManifestSize, and describes it with the digest computed from the
// bytes received: the descriptor and the body always agree.
func (c *Client) getManifest(ctx context.Context, repo *remote.Repository, target string, alg digest.Algorithm) (ocispec.Descriptor, []byte, error) {
	resp, err := c.get(ctx, repo, http.MethodGet, "manifests", target, manifestAccept)
	if err != nil {
		return ocispec.Descriptor{}, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ocispec.Descriptor{}, nil, parseErrorResponse(resp)
	}
	limit := c.opts.MaxManifestSize
	if resp.ContentLength > limit {
		return ocispec.Descriptor{}, nil, fmt.Errorf("%w: manifest is %d bytes, limit %d", ErrTooLarge, resp.ContentLength, limit)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return ocispec.Descriptor{}, nil, fmt.Errorf("%w: manifest body shorter than Content-Length %d: %w", errdef.ErrSizeMismatch, resp.ContentLength, err)
	}
	if err != nil {
		return ocispec.Descriptor{}, nil, fmt.Errorf("read manifest: %w", err)
	}
	if int64(len(body)) > limit {
		return ocispec.Descriptor{}, nil, fmt.Errorf("%w: manifest exceeds %d bytes", ErrTooLarge, limit)
	}
	dg := alg.FromBytes(body)
	if hd, err := headerDigestOf(resp.Header); err != nil {
		return ocispec.Descriptor{}, nil, err
	} else if hd != "" && hd.Algorithm() == alg && hd != dg {
		return ocispec.Descriptor{}, nil, fmt.Errorf("%w: %s header says %s, content is %s", errdef.ErrDigestMismatch, headerDigest, hd, dg)
	}
	mt := mediaType(resp.Header)
	if mt == "" || mt == "application/octet-stream" || mt == "text/plain" {
		var m struct {
			MediaType string `json:"mediaType"`
		}
		if json.Unmarshal(body, &m) == nil && m.MediaType != "" {
			mt = m.MediaType
		}
	}
	return ocispec.Descriptor{MediaType: mt, Digest: dg, Size: int64(len(body))}, body, nil
}

// FetchManifest fetches the manifest described by desc from ref's repository
// by digest (ref's tag and digest are not used). desc.Size must not exceed
// MaxManifestSize (ErrTooLarge); size and digest are verified before the
// bytes are returned (errdef.ErrSizeMismatch, errdef.ErrDigestMismatch).
func (c *Client) FetchManifest(ctx context.Context, ref Reference, desc ocispec.Descriptor) ([]byte, error) {
	name := ref.Repo() + "@" + desc.Digest.String()
	if desc.Size > c.opts.MaxManifestSize {
		return nil, fmt.Errorf("fetch manifest %s: %w: %d bytes, limit %d", name, ErrTooLarge, desc.Size, c.opts.MaxManifestSize)
	}
	var buf bytes.Buffer
	if err := c.fetch(ctx, ref, "manifests", desc, &buf); err != nil {
		return nil, c.wrapErr("fetch manifest", name, err)
	}
	return buf.Bytes(), nil
}

// FetchBlob streams the blob described by desc from ref's repository into w.
// Exactly desc.Size bytes are written on success: a shorter body, or any byte
// beyond desc.Size, is errdef.ErrSizeMismatch, and the digest is checked at the end
// (errdef.ErrDigestMismatch). w receives unverified bytes; callers spool to a
// temporary file and discard it on error.
//
// With Options.Progress set, the bytes written to w are counted.
func (c *Client) FetchBlob(ctx context.Context, ref Reference, desc ocispec.Descriptor, w io.Writer) error {
	m := c.meter(Transfer{Repository: ref.Repo(), Descriptor: desc})
	if m != nil {
		w = meteredWriter{w: w, m: m}
	}
	err := c.wrapErr("fetch blob", ref.Repo()+"@"+desc.Digest.String(), c.fetch(ctx, ref, "blobs", desc, w))
	if m != nil {
		m.Done(err)
	}
	return err
}

// FetchBlobBytes is FetchBlob into memory for small blobs; desc.Size > max is
// ErrTooLarge.
func (c *Client) FetchBlobBytes(ctx context.Context, ref Reference, desc ocispec.Descriptor, max int64) ([]byte, error) {
	name := ref.Repo() + "@" + desc.Digest.String()
	if desc.Size > max {
		return nil, fmt.Errorf("fetch blob %s: %w: %d bytes, limit %d", name, ErrTooLarge, desc.Size, max)
	}
	var buf bytes.Buffer
	if desc.Size > 0 {
		buf.Grow(int(desc.Size))
	}
	if err := c.fetch(ctx, ref, "blobs", desc, &buf); err != nil {
		return nil, c.wrapErr("fetch blob", name, err)
	}
	return buf.Bytes(), nil
}

// fetch GETs /v2/<repo>/<kind>/<digest> and copies the verified body to w.
func (c *Client) fetch(ctx context.Context, ref Reference, kind string, desc ocispec.Descriptor, w io.Writer) error {
	if err := desc.Digest.Validate(); err != nil {
		return fmt.Errorf("invalid descriptor digest %q: %w", desc.Digest, err)
	}
	if desc.Size < 0 {
		return fmt.Errorf("invalid descriptor size %d", desc.Size)
	}
	repo, err := c.repository(ctx, ref)
	if err != nil {
		return err
	}
	if kind == "blobs" {
		release, err := c.acquireDownload(ctx)
		if err != nil {
			return err
		}
		defer release()
	}
	accept := ""
	if kind == "manifests" {
		accept = manifestAccept
		if desc.MediaType != "" {
			accept = desc.MediaType + ", " + accept
		}
	}
	resp, err := c.get(ctx, repo, http.MethodGet, kind, desc.Digest.String(), accept)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return parseErrorResponse(resp)
	}
	if resp.ContentLength >= 0 && resp.ContentLength != desc.Size {
		return fmt.Errorf("%w: Content-Length %d, expected %d", errdef.ErrSizeMismatch, resp.ContentLength, desc.Size)
	}
	hd, err := headerDigestOf(resp.Header)
	if err != nil {
		return err
	}
	if hd != "" && hd.Algorithm() == desc.Digest.Algorithm() && hd != desc.Digest {
		return fmt.Errorf("%w: %s header says %s", errdef.ErrDigestMismatch, headerDigest, hd)
	}
	resume := func(offset int64) (io.ReadCloser, error) {
		return c.resumeFrom(ctx, repo, kind, desc, accept, offset)
	}
	return copyVerified(w, resp.Body, desc, resume)
}

// resumeFrom GETs the content again from offset: with a Range header, and
// when the registry ignores it (200), by skipping the first offset bytes.
func (c *Client) resumeFrom(ctx context.Context, repo *remote.Repository, kind string, desc ocispec.Descriptor, accept string, offset int64) (io.ReadCloser, error) {
	ctx, u := endpoint(ctx, repo, kind, desc.Digest.String())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-", offset))
	resp, err := repo.Client.Do(req)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusPartialContent && strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", offset)):
		return resp.Body, nil
	case resp.StatusCode == http.StatusOK:
		if _, err := io.CopyN(io.Discard, resp.Body, offset); err != nil {
			resp.Body.Close()
			return nil, err
		}
		return resp.Body, nil
	}
	defer resp.Body.Close()
	return nil, parseErrorResponse(resp)
}

// acquireDownload takes one of the Options.Concurrency blob download slots
// shared by all FetchBlob/FetchBlobBytes calls of the Client.
func (c *Client) acquireDownload(ctx context.Context) (release func(), err error) {
	select {
	case c.downloads <- struct{}{}:
		return func() { <-c.downloads }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// maxResumes is how many times a download that stalled (Options.ReadTimeout)
// is resumed where it stopped.
const maxResumes = 2

// copyVerified copies exactly desc.Size bytes from r to w, fails if r has
// fewer or more, and checks the digest of what was copied. When r stalls
// and resume is not nil, the copy goes on from resume(bytes copied so far),
// at most maxResumes times; the digest covers the bytes as written, from
// whichever response they came.
func copyVerified(w io.Writer, r io.Reader, desc ocispec.Descriptor, resume func(offset int64) (io.ReadCloser, error)) error {
	digester := desc.Digest.Algorithm().Digester()
	dst := &errWriter{w: io.MultiWriter(w, digester.Hash())}
	var n int64
	var err error
	for attempt := 0; ; attempt++ {
		var k int64
		k, err = io.CopyN(dst, r, desc.Size-n)
		n += k
		if !errors.As(err, new(stalledError)) || dst.err != nil || resume == nil || attempt == maxResumes {
			break
		}
		next, rerr := resume(n)
		if rerr != nil {
			return fmt.Errorf("resuming after %d of %d bytes: %w (first: %w)", n, desc.Size, rerr, err)
		}
		defer next.Close()
		r = next
	}
	switch {
	case dst.err != nil:
		return fmt.Errorf("write: %w", dst.err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: got %d bytes, expected %d: %w", errdef.ErrSizeMismatch, n, desc.Size, err)
	case err != nil:
		return fmt.Errorf("read after %d of %d bytes: %w", n, desc.Size, err)
	}
	var extra [1]byte
	if k, _ := io.ReadFull(r, extra[:]); k > 0 {
		return fmt.Errorf("%w: more than the expected %d bytes", errdef.ErrSizeMismatch, desc.Size)
	}
	if got := digester.Digest(); got != desc.Digest {
		return fmt.Errorf("%w: content is %s", errdef.ErrDigestMismatch, got)
	}
	return nil
}

// errWriter records the first error of w, to tell write errors from read
// errors after io.Copy.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}
