// Package scaffold writes a new, working add-on source directory: addon.yaml,
// a kustomize base, a component-config schema with defaults, and the
// replacements that wire the config into the manifests.
package scaffold

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/spec"
)

//go:embed all:template
var templates embed.FS

// ErrExists is returned when the target directory is not empty.
var ErrExists = errdef.New(errdef.ErrExists, "directory is not empty")

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// Options tune a scaffold.
type Options struct {
	// Name is the add-on name; the directory's base name by default.
	Name string
}

type values struct{ Name, Group, Kind string }

// Create writes the scaffold into dir, which must be missing or empty, and
// returns the files written (slash paths relative to dir).
func Create(dir string, opts Options) ([]string, error) {
	name := opts.Name
	if name == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		name = strings.ToLower(filepath.Base(abs))
	}
	if !dnsLabel.MatchString(name) {
		return nil, fmt.Errorf("add-on name %q must be a DNS-1123 label (lowercase letters, digits, '-'); pass --name: %w", name, spec.ErrInvalid)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s: %w: init never overwrites; remove it or choose another directory", dir, ErrExists)
	}
	v := values{Name: name, Group: name + ".addons.example.com", Kind: kindOf(name) + "Config"}
	var written []string
	err := fs.WalkDir(templates, "template", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimPrefix(p, "template/")
		raw, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		var out bytes.Buffer
		if err := template.Must(template.New(rel).Parse(string(raw))).Execute(&out, v); err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, out.Bytes(), 0o644); err != nil {
			return err
		}
		written = append(written, rel)
		return nil
	})
	return written, err
}

// kindOf turns "hello-world" into "HelloWorld".
func kindOf(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "-") {
		if part == "" {
			continue
		}
		if part[0] >= '0' && part[0] <= '9' && b.Len() == 0 {
			b.WriteString("Addon")
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}
