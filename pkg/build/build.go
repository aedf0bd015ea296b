package build

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"testing/fstest"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/render"
	"github.com/addonpack/addonpack/pkg/spec"
	"github.com/addonpack/addonpack/pkg/vcs"
)

var (
	// ErrSource is matched by errors about the source directory as a whole.
	ErrSource = errdef.New(errdef.ErrInvalid, "invalid add-on source")
	// ErrRender is matched when the kustomization does not build.
	ErrRender = errdef.New(errdef.ErrInvalid, "kustomize build failed")
)

// Result describes a built artifact.
type Result struct {
	// Manifest is the root descriptor, with ArtifactType and annotations set.
	Manifest ocispec.Descriptor `json:"manifest"`
	// Addon is the resolved addon.yaml stored in the config blob.
	Addon *spec.Addon `json:"addon"`
	// Annotations are the manifest annotations.
	Annotations map[string]string `json:"annotations"`
	// Layers holds the one layer: the package tree.
	Layers []ocispec.Descriptor `json:"layers"`
	// VCS holds the git facts of the source directory the build used
	// (Options.VCS), for provenance; nil without Options.VCS.
	VCS *vcs.Info `json:"-"`
}

// Build validates the add-on source in dir, packs it and pushes the config,
// the layers and the manifest into store. Nothing is pushed unless the whole
// source is valid.
func Build(ctx context.Context, dir string, store content.Pusher, opts Options) (*Result, error) {
	src, err := loadSource(dir, opts.limits())
	if err != nil {
		return nil, err
	}
	spool, _ := store.(*Spool)
	tmp := ""
	if spool != nil {
		tmp = spool.tempDir()
	}
	src.progress = opts.Progress
	pk, err := src.pack(ctx, tmp, opts.limits())
	if err != nil {
		return nil, err
	}
	defer pk.remove()
	if err := src.checkPacked(pk); err != nil {
		return nil, err
	}
	facts, err := opts.describe(ctx, dir)
	if err != nil {
		return nil, err
	}
	tree := newPackedTree(src, pk)
	cc, err := src.checkConfig(ctx, tree, opts.schemaLimits())
	if err != nil {
		return nil, err
	}
	in := render.Input{Files: tree, Root: src.addon.KustomizeRoot()}
	var profiles []profileCheck
	if cc != nil {
		in.Config, in.Components, profiles = cc.object, cc.components, cc.profiles
	}
	images, err := src.renderCheckMemo(ctx, in, profiles, pk.desc.Digest.String(), opts)
	if err != nil {
		return nil, err
	}
	if err := src.checkStandalone(in); err != nil {
		return nil, err
	}
	resolved := *src.addon
	if err := checkImages(&resolved, images, src.displayPath(spec.FileName)); err != nil {
		return nil, err
	}

	cb := spec.ConfigBlob{Addon: resolved}
	if cc != nil {
		cb.Schema = cc.schemaJSON
		cb.Conversion = cc.conversion
	}
	configJSON, err := json.Marshal(cb)
	if err != nil {
		return nil, err
	}
	// What the builder writes, its consumers must accept: derived images
	// included.
	if _, err := spec.ParseConfigBlob(configJSON, src.displayPath(spec.FileName)+" (resolved)"); err != nil {
		return nil, err
	}
	annotations := opts.annotations(facts, &resolved)

	config := desc(cb.MediaType(), configJSON, nil)
	manifest := spec.NewManifest(config, pk.desc, annotations)
	manifestJSON, err := json.Marshal(manifest)
	if err != nil {
		return nil, err
	}
	root := desc(spec.ManifestMediaType, manifestJSON, nil)
	root.ArtifactType = spec.ArtifactType
	if err := pushOnce(ctx, store, config, bytes.NewReader(configJSON)); err != nil {
		return nil, err
	}
	if err := pushLayer(ctx, store, spool, pk); err != nil {
		return nil, err
	}
	if err := pushOnce(ctx, store, root, bytes.NewReader(manifestJSON)); err != nil {
		return nil, err
	}
	root.Annotations = annotations
	return &Result{Manifest: root, Addon: &resolved, Annotations: annotations, Layers: manifest.Layers, VCS: facts}, nil
}

func desc(mediaType string, data []byte, annotations map[string]string) ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: mediaType, Digest: digest.FromBytes(data), Size: int64(len(data)), Annotations: annotations}
}

// existenceChecker is what a store may offer to skip known blobs.
type existenceChecker interface {
	Exists(ctx context.Context, target ocispec.Descriptor) (bool, error)
}

func pushOnce(ctx context.Context, store content.Pusher, d ocispec.Descriptor, r io.Reader) error {
	if ec, ok := store.(existenceChecker); ok {
		if ok, err := ec.Exists(ctx, d); err == nil && ok {
			return nil
		}
	}
	if err := store.Push(ctx, d, r); err != nil {
		return fmt.Errorf("storing %s %s: %w", d.MediaType, d.Digest, err)
	}
	return nil
}

// pushLayer hands the layer file to a Spool (a rename), or streams it into
// any other store.
func pushLayer(ctx context.Context, store content.Pusher, spool *Spool, pk *packed) error {
	if spool != nil {
		if ok, _ := spool.Exists(ctx, pk.desc); ok {
			return nil
		}
		if err := spool.adopt(pk.desc, pk.path); err != nil {
			return err
		}
		pk.path = ""
		return nil
	}
	f, err := os.Open(pk.path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pushOnce(ctx, store, pk.desc, f)
}

// readTree reads every package file once into memory, as the fs.FS the
// render check needs and the source of the packed layer.
func (s *source) readTree() (fstest.MapFS, error) {
	tree := make(fstest.MapFS, len(s.files))
	for _, f := range s.files {
		data, err := s.read(f.Path)
		if err != nil {
			return nil, err
		}
		mode := fs.FileMode(0o644)
		if f.Exec {
			mode = 0o755
		}
		tree[f.Path] = &fstest.MapFile{Data: data, Mode: mode}
	}
	return tree, nil
}

// describe reads the git facts of dir (nil without Options.VCS). Build asks
// right after packing, so that the facts describe the tree as packed rather
// than as it is after seconds of checks.
func (o Options) describe(ctx context.Context, dir string) (*vcs.Info, error) {
	if o.VCS == nil {
		return nil, nil
	}
	info, err := o.VCS.Describe(ctx, dir)
	if err != nil {
		return nil, err
	}
	return &info, nil
}

// annotations returns the manifest annotations; created and revision come
// from Options, else from the git facts, else created is Epoch.
func (o Options) annotations(facts *vcs.Info, a *spec.Addon) map[string]string {
	created, revision := Epoch(), o.Revision
	if facts != nil {
		info := *facts
		if !info.Time.IsZero() {
			created = info.Time
		}
		// A tree with uncommitted changes is not that commit: claim no
		// revision rather than a wrong one.
		if revision == "" && !info.Dirty {
			revision = info.Commit
		}
	}
	if o.Created != nil {
		created = *o.Created
	}
	m := map[string]string{
		spec.AnnotationTitle:       a.Metadata.Name,
		spec.AnnotationVersion:     a.Spec.Version,
		spec.AnnotationDescription: a.Spec.Description,
		spec.AnnotationCreated:     created.UTC().Format(time.RFC3339),
	}
	set := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	set(spec.AnnotationSource, a.Spec.Source)
	set(spec.AnnotationRevision, revision)
	set(spec.AnnotationLicenses, a.Spec.License)
	set(spec.AnnotationURL, a.Spec.Homepage)
	set(spec.AnnotationConfigType, a.ConfigType())
	return m
}
