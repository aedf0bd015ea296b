package testregistry

import (
	"fmt"
	"io"
)

// DefaultMaxManifestSize is the manifest size cap unless WithMaxManifestSize
// changes it. Larger manifests are refused with 413.
const DefaultMaxManifestSize = 4 << 20

// Option configures a registry created by New or NewHandler.
type Option func(*options)

type options struct {
	storage         Storage
	users           map[string]credential // nil: no auth
	htpasswdErr     error
	tls             bool
	faults          *Faults
	maxManifestSize int64
	accessLog       io.Writer
	allowSparse     bool
	noDelete        bool
}

func buildOptions(opts []Option) *options {
	o := &options{maxManifestSize: DefaultMaxManifestSize}
	for _, opt := range opts {
		opt(o)
	}
	if o.storage == nil {
		o.storage = NewMemoryStorage()
	}
	return o
}

// WithStorage selects the storage backend (default: NewMemoryStorage()).
func WithStorage(s Storage) Option {
	return func(o *options) { o.storage = s }
}

// WithBasicAuth requires HTTP basic auth with this user and password on every
// /v2/ request.
func WithBasicAuth(user, password string) Option {
	return func(o *options) {
		if o.users == nil {
			o.users = map[string]credential{}
		}
		o.users[user] = plainCredential(password)
	}
}

// WithHtpasswd requires HTTP basic auth against an htpasswd file with bcrypt
// ($2y$, $2a$, $2b$) or {SHA} entries. New fails the test when the file
// cannot be read.
func WithHtpasswd(path string) Option {
	return func(o *options) {
		users, err := loadHtpasswd(path)
		if err != nil {
			o.htpasswdErr = fmt.Errorf("htpasswd: %w", err)
			return
		}
		if o.users == nil {
			o.users = map[string]credential{}
		}
		for u, c := range users {
			o.users[u] = c
		}
	}
}

// WithTLS serves HTTPS with a self-signed certificate for 127.0.0.1, ::1 and
// localhost generated in memory; Registry.CertPool trusts it.
func WithTLS() Option {
	return func(o *options) { o.tls = true }
}

// WithFaults injects the faults described by f.
func WithFaults(f Faults) Option {
	return func(o *options) { o.faults = &f }
}

// WithMaxManifestSize caps manifest bodies at n bytes (413 above it).
func WithMaxManifestSize(n int64) Option {
	return func(o *options) { o.maxManifestSize = n }
}

// WithAccessLog writes one line per request to w.
func WithAccessLog(w io.Writer) Option {
	return func(o *options) { o.accessLog = w }
}

// WithSparseManifests accepts manifests whose layers, config or index
// children are not in the repository (the conformance suite's optional
// "sparse" data set). By default such pushes fail with MANIFEST_BLOB_UNKNOWN.
func WithSparseManifests() Option {
	return func(o *options) { o.allowSparse = true }
}

// WithoutDeletes refuses every DELETE of a manifest or blob with 405 and the
// error code UNSUPPORTED, as CNCF distribution does unless
// storage.delete.enabled is set.
func WithoutDeletes() Option {
	return func(o *options) { o.noDelete = true }
}
