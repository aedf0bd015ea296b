package testregistry

import (
	"context"
	"errors"
	"io"
)

// Storage is the persistence layer behind the registry. Implementations must
// be safe for concurrent use. Digests are always canonical strings such as
// "sha256:<64 hex>" or "sha512:<128 hex>", already validated by the caller;
// repository names, tags and upload IDs are validated too.
//
// Blob content is shared by all repositories and addressed by digest; a
// repository sees a blob only once it is linked to it. Manifests and tags are
// per repository. Methods that look something up return an error wrapping
// ErrNotFound when it does not exist.
type Storage interface {
	// OpenBlob opens blob content. The caller closes the reader.
	OpenBlob(ctx context.Context, digest string) (io.ReadSeekCloser, int64, error)
	// LinkBlob makes an existing blob visible in repo.
	LinkBlob(ctx context.Context, repo, digest string) error
	// UnlinkBlob hides a blob from repo (ErrNotFound if it was not linked).
	UnlinkBlob(ctx context.Context, repo, digest string) error
	// BlobLinked reports whether the blob is linked to repo and exists.
	BlobLinked(ctx context.Context, repo, digest string) (bool, error)

	// CreateUpload starts an empty upload session for repo.
	CreateUpload(ctx context.Context, repo, id string) error
	// AppendUpload appends r to the session if offset equals its current
	// size (ErrRangeMismatch otherwise) and returns the new size.
	AppendUpload(ctx context.Context, repo, id string, offset int64, r io.Reader) (int64, error)
	// UploadSize returns the number of bytes received so far.
	UploadSize(ctx context.Context, repo, id string) (int64, error)
	// CommitUpload hashes the session with the algorithm of want, moves it
	// into blob storage when it matches (ErrDigestMismatch otherwise), links
	// it to repo and removes the session. It returns the blob size.
	CommitUpload(ctx context.Context, repo, id, want string) (int64, error)
	// DeleteUpload removes a session.
	DeleteUpload(ctx context.Context, repo, id string) error

	// PutManifest stores a manifest body with its media type.
	PutManifest(ctx context.Context, repo, digest, mediaType string, body []byte) error
	// GetManifest returns a manifest's media type and body.
	GetManifest(ctx context.Context, repo, digest string) (mediaType string, body []byte, err error)
	// DeleteManifest removes a manifest from repo.
	DeleteManifest(ctx context.Context, repo, digest string) error
	// ListManifests returns the digests of all manifests in repo (nil for an
	// unknown repository).
	ListManifests(ctx context.Context, repo string) ([]string, error)

	// SetTag points tag at a manifest digest.
	SetTag(ctx context.Context, repo, tag, digest string) error
	// GetTag resolves a tag to a manifest digest.
	GetTag(ctx context.Context, repo, tag string) (string, error)
	// DeleteTag removes a tag.
	DeleteTag(ctx context.Context, repo, tag string) error
	// ListTags returns repo's tags in any order; ErrNotFound when the
	// repository has never been written to.
	ListTags(ctx context.Context, repo string) ([]string, error)
}

// Storage errors. Implementations wrap them with %w.
var (
	ErrNotFound       = errors.New("not found")
	ErrRangeMismatch  = errors.New("upload offset does not match the bytes received")
	ErrDigestMismatch = errors.New("content does not match digest")
)
