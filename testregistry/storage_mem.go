package testregistry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
)

// memStorage keeps everything in memory behind one mutex.
type memStorage struct {
	mu      sync.Mutex
	blobs   map[string][]byte
	uploads map[string]*memUpload // key: repo + "\x00" + id
	repos   map[string]*memRepo
}

type memUpload struct {
	repo string
	data []byte
}

type memRepo struct {
	links     map[string]bool
	manifests map[string]memManifest
	tags      map[string]string
}

type memManifest struct {
	mediaType string
	body      []byte
}

// NewMemoryStorage returns an empty in-memory Storage.
func NewMemoryStorage() Storage {
	return &memStorage{
		blobs:   map[string][]byte{},
		uploads: map[string]*memUpload{},
		repos:   map[string]*memRepo{},
	}
}

func (m *memStorage) repo(name string) *memRepo {
	r, ok := m.repos[name]
	if !ok {
		r = &memRepo{links: map[string]bool{}, manifests: map[string]memManifest{}, tags: map[string]string{}}
		m.repos[name] = r
	}
	return r
}

func (m *memStorage) OpenBlob(_ context.Context, digest string) (io.ReadSeekCloser, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[digest]
	if !ok {
		return nil, 0, fmt.Errorf("blob %s: %w", digest, ErrNotFound)
	}
	return nopCloser{bytes.NewReader(b)}, int64(len(b)), nil
}

type nopCloser struct{ io.ReadSeeker }

func (nopCloser) Close() error { return nil }

func (m *memStorage) LinkBlob(_ context.Context, repo, digest string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.blobs[digest]; !ok {
		return fmt.Errorf("blob %s: %w", digest, ErrNotFound)
	}
	m.repo(repo).links[digest] = true
	return nil
}

func (m *memStorage) UnlinkBlob(_ context.Context, repo, digest string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.repos[repo]
	if !ok || !r.links[digest] {
		return fmt.Errorf("blob %s in %s: %w", digest, repo, ErrNotFound)
	}
	delete(r.links, digest)
	return nil
}

func (m *memStorage) BlobLinked(_ context.Context, repo, digest string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.repos[repo]
	_, exists := m.blobs[digest]
	return ok && exists && r.links[digest], nil
}

func (m *memStorage) CreateUpload(_ context.Context, repo, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.uploads[repo+"\x00"+id] = &memUpload{repo: repo}
	return nil
}

func (m *memStorage) upload(repo, id string) (*memUpload, error) {
	u, ok := m.uploads[repo+"\x00"+id]
	if !ok {
		return nil, fmt.Errorf("upload %s: %w", id, ErrNotFound)
	}
	return u, nil
}

func (m *memStorage) AppendUpload(_ context.Context, repo, id string, offset int64, r io.Reader) (int64, error) {
	// Read outside the lock: the body may be slow.
	data, err := io.ReadAll(r)
	if err != nil {
		return 0, fmt.Errorf("reading chunk: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	u, err := m.upload(repo, id)
	if err != nil {
		return 0, err
	}
	if offset != int64(len(u.data)) {
		return int64(len(u.data)), fmt.Errorf("offset %d, have %d: %w", offset, len(u.data), ErrRangeMismatch)
	}
	u.data = append(u.data, data...)
	return int64(len(u.data)), nil
}

func (m *memStorage) UploadSize(_ context.Context, repo, id string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, err := m.upload(repo, id)
	if err != nil {
		return 0, err
	}
	return int64(len(u.data)), nil
}

func (m *memStorage) CommitUpload(_ context.Context, repo, id, want string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, err := m.upload(repo, id)
	if err != nil {
		return 0, err
	}
	delete(m.uploads, repo+"\x00"+id)
	if _, err := digestReader(want, bytes.NewReader(u.data)); err != nil {
		return 0, err
	}
	if _, ok := m.blobs[want]; !ok {
		m.blobs[want] = u.data
	}
	m.repo(repo).links[want] = true
	return int64(len(u.data)), nil
}

func (m *memStorage) DeleteUpload(_ context.Context, repo, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.upload(repo, id); err != nil {
		return err
	}
	delete(m.uploads, repo+"\x00"+id)
	return nil
}

func (m *memStorage) PutManifest(_ context.Context, repo, digest, mediaType string, body []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.repo(repo).manifests[digest] = memManifest{mediaType: mediaType, body: bytes.Clone(body)}
	return nil
}

func (m *memStorage) GetManifest(_ context.Context, repo, digest string) (string, []byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.repos[repo]; ok {
		if mf, ok := r.manifests[digest]; ok {
			return mf.mediaType, bytes.Clone(mf.body), nil
		}
	}
	return "", nil, fmt.Errorf("manifest %s in %s: %w", digest, repo, ErrNotFound)
}

func (m *memStorage) DeleteManifest(_ context.Context, repo, digest string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.repos[repo]
	if !ok {
		return fmt.Errorf("manifest %s in %s: %w", digest, repo, ErrNotFound)
	}
	if _, ok := r.manifests[digest]; !ok {
		return fmt.Errorf("manifest %s in %s: %w", digest, repo, ErrNotFound)
	}
	delete(r.manifests, digest)
	return nil
}

func (m *memStorage) ListManifests(_ context.Context, repo string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.repos[repo]
	if !ok {
		return nil, nil
	}
	out := make([]string, 0, len(r.manifests))
	for d := range r.manifests {
		out = append(out, d)
	}
	return out, nil
}

func (m *memStorage) SetTag(_ context.Context, repo, tag, digest string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.repo(repo).tags[tag] = digest
	return nil
}

func (m *memStorage) GetTag(_ context.Context, repo, tag string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.repos[repo]; ok {
		if d, ok := r.tags[tag]; ok {
			return d, nil
		}
	}
	return "", fmt.Errorf("tag %s in %s: %w", tag, repo, ErrNotFound)
}

func (m *memStorage) DeleteTag(_ context.Context, repo, tag string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.repos[repo]
	if !ok {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, ErrNotFound)
	}
	if _, ok := r.tags[tag]; !ok {
		return fmt.Errorf("tag %s in %s: %w", tag, repo, ErrNotFound)
	}
	delete(r.tags, tag)
	return nil
}

func (m *memStorage) ListTags(_ context.Context, repo string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.repos[repo]
	if !ok {
		return nil, fmt.Errorf("repository %s: %w", repo, ErrNotFound)
	}
	out := make([]string, 0, len(r.tags))
	for t := range r.tags {
		out = append(out, t)
	}
	return out, nil
}
