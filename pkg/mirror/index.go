package mirror

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
)

// The index a mirror tarball carries (specs/mirror.md section 5.3).
const (
	IndexFile     = "mirror.json"
	IndexKind     = "MirrorIndex"
	maxIndexSize  = 4 << 20
	maxIndexItems = 4096
)

// Index lists the releases of a mirror tarball.
type Index struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Releases   []IndexRelease `json:"releases"`
}

// IndexRelease is one release in a mirror tarball: where it came from and
// its tag in the layout.
type IndexRelease struct {
	Repository string        `json:"repository"`
	Tag        string        `json:"tag"`
	Digest     digest.Digest `json:"digest"`
	Name       string        `json:"name"`
	LayoutTag  string        `json:"layoutTag"`
}

// ParseIndex reads a mirror tarball's index strictly: unknown members,
// another kind, too many releases, a release without a reference, digest or
// layout tag are refused (ErrFile); name is the tarball, for errors.
func ParseIndex(raw []byte, name string) (*Index, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("mirror tarball %s: %s: %w: "+format, append([]any{name, IndexFile, ErrFile}, args...)...)
	}
	if len(raw) > maxIndexSize {
		return nil, fail("larger than %d bytes", maxIndexSize)
	}
	var idx Index
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&idx); err != nil {
		return nil, fail("%w", err)
	}
	if idx.APIVersion != APIVersion || idx.Kind != IndexKind {
		return nil, fail("apiVersion/kind %s/%s, want %s/%s", idx.APIVersion, idx.Kind, APIVersion, IndexKind)
	}
	if len(idx.Releases) > maxIndexItems {
		return nil, fail("%d releases, more than %d", len(idx.Releases), maxIndexItems)
	}
	for i, r := range idx.Releases {
		ref, err := registry.ParseReference(r.Repository + ":" + r.Tag)
		if err == nil && (ref.Repo() != r.Repository) {
			err = fmt.Errorf("%q is not a repository", r.Repository)
		}
		if err == nil {
			err = r.Digest.Validate()
		}
		if err == nil && r.LayoutTag == "" {
			err = errors.New("no layoutTag")
		}
		if err != nil {
			return nil, fail("releases[%d]: %w", i, err)
		}
	}
	return &idx, nil
}

// readIndex reads the index of the mirror tarball at p; nil, nil when
// there is no file at p, ErrNotMirrorTarball when the file has no index.
func readIndex(p string) (*Index, error) {
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	raw, err := relocate.ReadLayoutFile(p, IndexFile, maxIndexSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w: it holds no %s", p, ErrNotMirrorTarball, IndexFile)
	}
	if err != nil {
		return nil, err
	}
	return ParseIndex(raw, p)
}

// layoutTag names a release in the tarball: NAME-TAG, NAME the
// repository's last path element.
func layoutTag(repo registry.Reference, tag string) string {
	return path.Base(repo.Repository) + "-" + tag
}

// find returns the release of idx for repo and tag, if any.
func (idx *Index) find(repo, tag string) (IndexRelease, bool) {
	if idx == nil {
		return IndexRelease{}, false
	}
	for _, r := range idx.Releases {
		if r.Repository == repo && r.Tag == tag {
			return r, true
		}
	}
	return IndexRelease{}, false
}
