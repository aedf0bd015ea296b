package build

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing/fstest"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/spec"
)

// source is a scanned add-on source directory.
type source struct {
	dir      string // as the caller named it, for messages
	addon    *spec.Addon
	addonSum [sha256.Size]byte // of the addon.yaml bytes parsed into addon
	files    []archive.File
	index    map[string]archive.File
	progress func(read, total int64) // Options.Progress, told by pack
}

// loadSource reads addon.yaml and scans the tree. Errors name the file.
func loadSource(dir string, limits archive.Limits) (*source, error) {
	manifestPath := filepath.Join(dir, spec.FileName)
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("source %s: not a directory: %w", dir, ErrSource)
	}
	data, err := os.ReadFile(manifestPath)
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("%s: missing: %s is not an add-on source directory (addonpack init creates one): %w", manifestPath, dir, ErrSource)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", manifestPath, err)
	}
	addon, err := spec.ParseAddon(data, manifestPath)
	if err != nil {
		return nil, err
	}
	files, err := archive.Scan(dir, limits)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", dir, err)
	}
	s := &source{dir: dir, addon: addon, addonSum: sha256.Sum256(data), files: files, index: make(map[string]archive.File, len(files))}
	for _, f := range files {
		s.index[f.Path] = f
	}
	if _, ok := s.index[spec.FileName]; !ok {
		return nil, fmt.Errorf("%s: excluded from the package by .addonpackignore: %w", manifestPath, ErrSource)
	}
	return s, s.checkPaths()
}

// LoadTree validates dir's addon.yaml and returns it with the package files
// exactly as they would be packed (ignore rules applied), read into memory.
func LoadTree(dir string, limits archive.Limits) (*spec.Addon, fstest.MapFS, error) {
	src, err := loadSource(dir, limits)
	if err != nil {
		return nil, nil, err
	}
	tree, err := src.readTree()
	if err != nil {
		return nil, nil, err
	}
	return src.addon, tree, nil
}

// checkPaths makes sure every path addon.yaml names is in the package.
func (s *source) checkPaths() error {
	file := filepath.Join(s.dir, spec.FileName)
	root := s.addon.KustomizeRoot()
	if !s.hasKustomization(root) {
		return &spec.FieldError{File: file, Field: "spec.kustomize", Msg: fmt.Sprintf("no kustomization.yaml in %q of the package", root)}
	}
	c := s.addon.Spec.Config
	if c == nil {
		return nil
	}
	if _, ok := s.index[c.Schema]; !ok {
		return &spec.FieldError{File: file, Field: "spec.config.schema", Msg: fmt.Sprintf("%q is not a file in the package", c.Schema)}
	}
	if _, ok := s.index[c.Defaults]; c.Defaults != "" && !ok {
		return &spec.FieldError{File: file, Field: "spec.config.defaults", Msg: fmt.Sprintf("%q is not a file in the package", c.Defaults)}
	}
	for i, comp := range c.Components {
		if !s.hasKustomization(comp.Path) {
			return &spec.FieldError{File: file, Field: fmt.Sprintf("spec.config.components[%d].path", i),
				Msg: fmt.Sprintf("no kustomization.yaml (kind: Component) in %q of the package", comp.Path)}
		}
	}
	for i, o := range c.Overlays {
		if _, ok := s.index[o.Defaults]; !ok {
			return &spec.FieldError{File: file, Field: fmt.Sprintf("spec.config.overlays[%d].defaults", i), Msg: fmt.Sprintf("%q is not a file in the package", o.Defaults)}
		}
	}
	return s.checkConversionPaths(file, c.Conversion)
}

// checkConversionPaths makes sure the older schemas and the test vectors
// spec.config.conversion names are files of the package.
func (s *source) checkConversionPaths(file string, conv *spec.Conversion) error {
	if conv == nil {
		return nil
	}
	missing := func(field, p string) error {
		return &spec.FieldError{File: file, Field: field, Msg: fmt.Sprintf("%q is not a file in the package", p)}
	}
	for i, v := range conv.Versions {
		if _, ok := s.index[v.Schema]; !ok {
			return missing(fmt.Sprintf("spec.config.conversion.versions[%d].schema", i), v.Schema)
		}
	}
	for i, tv := range conv.Tests {
		if _, ok := s.index[tv.Input]; !ok {
			return missing(fmt.Sprintf("spec.config.conversion.tests[%d].input", i), tv.Input)
		}
		if _, ok := s.index[tv.Output]; !ok {
			return missing(fmt.Sprintf("spec.config.conversion.tests[%d].output", i), tv.Output)
		}
	}
	return nil
}

func (s *source) hasKustomization(dir string) bool {
	for _, name := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if _, ok := s.index[path.Join(dir, name)]; ok {
			return true
		}
	}
	return false
}

// read returns the content of a package file, bounded by its scanned size.
func (s *source) read(p string) ([]byte, error) {
	f, ok := s.index[p]
	if !ok {
		return nil, fmt.Errorf("%s: not in the package", filepath.Join(s.dir, p))
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, f.Size+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(s.dir, p), err)
	}
	if int64(len(data)) != f.Size {
		return nil, fmt.Errorf("%s: changed while building", filepath.Join(s.dir, p))
	}
	return data, nil
}

// displayPath is a package path as the user sees it on disk.
func (s *source) displayPath(p string) string {
	return filepath.Join(s.dir, filepath.FromSlash(strings.TrimPrefix(p, "./")))
}

// checkPacked makes sure the addon.yaml that was parsed (before the tree
// was scanned) is the one that was packed: every check follows the parsed
// one, consumers read the packed one.
func (s *source) checkPacked(pk *packed) error {
	if !bytes.Equal(s.addonSum[:], pk.sums[spec.FileName]) {
		return fmt.Errorf("%s: %w: it changed while the add-on was being packed", s.displayPath(spec.FileName), archive.ErrFileChanged)
	}
	return nil
}
