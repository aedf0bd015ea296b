package stack

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/relocate"
)

// carriedValues names the top-level file of a stack tarball that carries
// the values file of the stack file's entry i (specs/stack.md section 4.4).
func carriedValues(i int) string { return fmt.Sprintf("addons.values.%d.yaml", i) }

// valuesFiles reads the values file of every entry of st that names one,
// for a stack tarball: each inside the stack file's directory, bounded, one
// YAML or JSON object. It returns them by tarball file name.
func valuesFiles(st *Stack) (map[string][]byte, error) {
	out := map[string][]byte{}
	for i, e := range st.Addons {
		if e.Values == "" {
			continue
		}
		field := fmt.Sprintf("%s: addons[%d].values", st.Path, i)
		if !filepath.IsLocal(e.Values) {
			return nil, fmt.Errorf("%s: %q leaves the stack file's directory: it cannot be carried in a stack tarball: %w", field, e.Values, ErrStack)
		}
		b, err := readBounded(filepath.Join(st.Dir(), e.Values))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		if err := checkValues(b); err != nil {
			return nil, fmt.Errorf("%s: %s: %w: %w", field, e.Values, ErrStack, err)
		}
		out[carriedValues(i)] = b
	}
	return out, nil
}

// checkValues makes sure b reads as one YAML or JSON object.
func checkValues(b []byte) error {
	var obj map[string]any
	if err := yaml.Unmarshal(b, &obj); err != nil {
		return err
	}
	if obj == nil {
		return errors.New("not a YAML or JSON object")
	}
	return nil
}

// carried is a values file of a stack tarball and where it goes.
type carried struct {
	path string
	data []byte
}

// readCarriedValues reads, from the stack tarball at path, the values file
// of every entry of st (the tarball's stack file, for stackOut) that names
// one, and says where each goes: its values path, relative to stackOut's
// directory. A tarball written before values were carried has none: those
// entries are skipped. Every target must be new.
func readCarriedValues(path string, st *Stack, stackOut string) ([]carried, error) {
	var out []carried
	for i, e := range st.Addons {
		if e.Values == "" {
			continue
		}
		field := fmt.Sprintf("%s:%s: addons[%d].values", path, TarballStackFile, i)
		b, err := relocate.ReadLayoutFile(path, carriedValues(i), maxFileBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		if !filepath.IsLocal(e.Values) {
			return nil, fmt.Errorf("%s: %q leaves the stack file's directory: %w", field, e.Values, ErrStack)
		}
		if err := checkValues(b); err != nil {
			return nil, fmt.Errorf("%s: %w: %w", field, ErrStack, err)
		}
		target := filepath.Join(filepath.Dir(stackOut), e.Values)
		if _, err := os.Lstat(target); err == nil {
			return nil, fmt.Errorf("%s: %w: remove it or choose another stack file", target, errdef.ErrExists)
		}
		out = append(out, carried{target, b})
	}
	return out, nil
}

// writeCarried writes the carried values files, none over an existing
// file; on failure it removes those it wrote.
func writeCarried(files []carried) (err error) {
	var written []string
	defer func() {
		if err != nil {
			for _, p := range written {
				os.Remove(p)
			}
		}
	}()
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return err
		}
		if err := atomicfile.Write(f.path, f.data, false); err != nil {
			return fmt.Errorf("%s: %w", f.path, err)
		}
		written = append(written, f.path)
	}
	return nil
}
