package relocate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing/fstest"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content/memory"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/render"
)

// RecordArtifactType is the artifactType of the relocation record, an OCI
// referrer of the add-on at the destination, and the media type of its one
// layer, the Record as JSON.
const RecordArtifactType = "application/vnd.addonpack.relocation.v1+json"

// maxRecordSize bounds a relocation record blob.
const maxRecordSize = 1 << 20

// ImageMapping says where one image of the add-on was copied.
type ImageMapping struct {
	// Name is the image name as the manifests use it, without tag or
	// digest (kustomize's images[].name).
	Name string `json:"name"`
	// Source is the image as addon.yaml lists it.
	Source string `json:"source"`
	// NewName is the destination "registry/repository".
	NewName string `json:"newName"`
	// Digest is the manifest digest copied, the same at both ends.
	Digest digest.Digest `json:"digest"`
}

// Record is the relocation record of an add-on copied with its images.
type Record struct {
	Images []ImageMapping `json:"images"`
}

// KustomizeImages returns the record as kustomize `images` entries, for
// render.Input.Images: each image moves to its new name, pinned by digest.
// The record is unsigned, so only mappings that match the verified add-on
// are kept (see Trusted); names are regexp-quoted because kustomize matches
// them as regular expressions.
func (r *Record) KustomizeImages() []render.Image {
	if r == nil {
		return nil
	}
	out := make([]render.Image, 0, len(r.Images))
	for _, m := range r.Images {
		out = append(out, render.Image{Name: regexp.QuoteMeta(m.Name), NewName: m.NewName, Digest: m.Digest.String()})
	}
	return out
}

// Trusted keeps the mappings an unsigned record may apply to the verified
// add-on whose spec.images is declared and which was read from repository
// home (specs/relocation.md): the mapping's name must be the name of a
// declared image, and
//
//   - when that image is pinned by digest, the mapping must carry the same
//     digest: the content cannot change, only where it is pulled from;
//   - when it names a tag only, the signature vouches for no digest at all,
//     and whoever can write home's registry could retag it anyway; the
//     mapping is kept when it moves the image to where copy --images puts
//     it, ImageRepository(home, image), pinned by the digest the copy
//     resolved — no further from the add-on than the add-on itself — and
//     elsewhere only with allowTags.
//
// It returns the kept record and the names of the mappings dropped.
func (r *Record) Trusted(declared []string, home registry.Reference, allowTags bool) (*Record, []string) {
	if r == nil {
		return nil, nil
	}
	pinned := map[string]digest.Digest{}
	beside := map[string]string{} // tag-only image name → where copy --images puts it
	for _, img := range declared {
		name := imageName(img)
		if i := strings.Index(img, "@"); i >= 0 {
			pinned[name] = digest.Digest(img[i+1:])
		} else if ref, err := imageRef(img); err == nil {
			beside[name] = ImageRepository(home, ref).Repo()
		}
	}
	kept := &Record{}
	var dropped []string
	for _, m := range r.Images {
		d, isPinned := pinned[m.Name]
		at, tagged := beside[m.Name]
		switch {
		case isPinned && d == m.Digest:
			kept.Images = append(kept.Images, m)
		case tagged && m.Digest.Validate() == nil && (m.NewName == at || allowTags):
			kept.Images = append(kept.Images, m)
		default:
			dropped = append(dropped, m.Name)
		}
	}
	return kept, dropped
}

func (r *Record) Rewrite(ctx context.Context, rendered []byte) ([]byte, error) {
	if r == nil || len(r.Images) == 0 {
		return rendered, nil
	}
	type image struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		Digest  string `json:"digest"`
	}
	k := struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
		Images     []image  `json:"images"`
	}{APIVersion: "kustomize.config.k8s.io/v1beta1", Kind: "Kustomization", Resources: []string{"rendered.yaml"}}
	for _, m := range r.Images {
		k.Images = append(k.Images, image{Name: regexp.QuoteMeta(m.Name), NewName: m.NewName, Digest: m.Digest.String()})
	}
	kb, err := json.Marshal(k) // JSON is YAML
	if err != nil {
		return nil, err
	}
	// fstest.MapFS is a plain in-memory fs.FS (it does not import testing).
	files := fstest.MapFS{
		"kustomization.yaml": {Data: kb, Mode: 0o644},
		"rendered.yaml":      {Data: rendered, Mode: 0o644},
	}
	out, err := render.Build(ctx, render.Input{Files: files, Root: "."})
	if err != nil {
		return nil, fmt.Errorf("relocating images: %w", err)
	}
	return out, nil
}

// pushRecord stores rec as a referrer of subject in repo and returns its descriptor.
func pushRecord(ctx context.Context, c *registry.Client, repo registry.Reference, subject ocispec.Descriptor, rec *Record) (ocispec.Descriptor, error) {
	store := memory.New()
	put := func(mt string, b []byte) (ocispec.Descriptor, error) {
		d := ocispec.Descriptor{MediaType: mt, Digest: digest.FromBytes(b), Size: int64(len(b))}
		return d, store.Push(ctx, d, bytes.NewReader(b))
	}
	body, _ := json.Marshal(rec)
	layer, err := put(RecordArtifactType, body)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	cfg, err := put(ocispec.MediaTypeEmptyJSON, []byte("{}"))
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	subj := ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size}
	m := ocispec.Manifest{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: RecordArtifactType,
		Config: cfg, Layers: []ocispec.Descriptor{layer}, Subject: &subj}
	m.SchemaVersion = 2
	raw, _ := json.Marshal(m)
	root, err := put(ocispec.MediaTypeImageManifest, raw)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	if _, err := c.Push(ctx, store, root, repo); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("relocation record of %s: %w", repo.WithDigest(subject.Digest), err)
	}
	root.ArtifactType = RecordArtifactType
	return root, nil
}

// LoadRecord returns the relocation record of subject in ref's repository
// that relocates its images beside it (every NewName under ref's
// repository, as ImageRepository names them); nil when there is none.
// Records of an earlier hop of a chained copy are ignored. The record is
// not signed: it is as trustworthy as the registry that serves it, but its
// digests pin what every image resolves to.
func LoadRecord(ctx context.Context, c *registry.Client, ref registry.Reference, subject ocispec.Descriptor) (*Record, error) {
	repo := ref
	repo.Tag, repo.Digest = "", ""
	list, _, err := c.Referrers(ctx, repo, subject, RecordArtifactType, DefaultMaxReferrers)
	if err != nil {
		return nil, err
	}
	for _, d := range list {
		raw, err := c.FetchManifest(ctx, repo, d)
		if err != nil {
			return nil, err
		}
		var m ocispec.Manifest
		if err := json.Unmarshal(raw, &m); err != nil || len(m.Layers) != 1 || m.Layers[0].MediaType != RecordArtifactType {
			return nil, fmt.Errorf("relocation record %s of %s: %w", d.Digest, repo.WithDigest(subject.Digest), ErrMalformedRecord)
		}
		b, err := c.FetchBlobBytes(ctx, repo, m.Layers[0], maxRecordSize)
		if err != nil {
			return nil, err
		}
		var rec Record
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, fmt.Errorf("relocation record %s of %s: %w: %w", d.Digest, repo.WithDigest(subject.Digest), ErrMalformedRecord, err)
		}
		if rec.into(repo.Repo()) {
			return &rec, rec.validate()
		}
	}
	return nil, nil
}

// ErrMalformedRecord reports a relocation record that cannot be used.
var ErrMalformedRecord = errdef.New(errdef.ErrInvalid, "malformed relocation record")

func (r *Record) into(repo string) bool {
	for _, m := range r.Images {
		if !strings.HasPrefix(m.NewName, repo+"/") {
			return false
		}
	}
	return len(r.Images) > 0
}

func (r *Record) validate() error {
	for _, m := range r.Images {
		if err := m.Digest.Validate(); err != nil || m.Name == "" {
			return fmt.Errorf("%w: image %q digest %q", ErrMalformedRecord, m.Name, m.Digest)
		}
	}
	return nil
}
