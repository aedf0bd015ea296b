package render

import (
	"context"
	"io/fs"
	"slices"
	"sync"
	"testing"
	"testing/fstest"
)

// openLog is an fs.FS that records which files are opened.
type openLog struct {
	fstest.MapFS
	mu     sync.Mutex
	opened []string
}

func (o *openLog) Open(name string) (fs.File, error) {
	f, err := o.MapFS.Open(name)
	if err == nil {
		if fi, err := f.Stat(); err == nil && !fi.IsDir() {
			o.mu.Lock()
			o.opened = append(o.opened, name)
			o.mu.Unlock()
		}
	}
	return f, err
}

// ReadFile goes through Open so that every read is logged.
func (o *openLog) ReadFile(name string) ([]byte, error) {
	f, err := o.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, _ := f.Stat()
	buf := make([]byte, info.Size())
	_, err = f.Read(buf)
	return buf, err
}

// TestBuildReadsOnlyWhatKustomizeLoads: files the kustomization never
// loads are listed (globs and existence checks see them) but never read, so
// a package's large unlisted files are not held in memory.
func TestBuildReadsOnlyWhatKustomizeLoads(t *testing.T) {
	src := &openLog{MapFS: files(
		"kustomization.yaml", "resources: [cm.yaml]\nconfigMapGenerator:\n- name: g\n  files: [data/used.txt]\n",
		"cm.yaml", cm,
		"data/used.txt", "used",
		"data/unused.bin", "never read",
		"crds/big.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\n",
	)}
	for _, run := range []func(context.Context, Input) error{
		func(ctx context.Context, in Input) error { _, err := Build(ctx, in); return err },
		func(ctx context.Context, in Input) error { _, err := Check(ctx, in); return err },
	} {
		src.opened = nil
		if err := run(context.Background(), Input{Files: src, Root: "."}); err != nil {
			t.Fatal(err)
		}
		slices.Sort(src.opened)
		if want := []string{"cm.yaml", "data/used.txt", "kustomization.yaml"}; !slices.Equal(src.opened, want) {
			t.Errorf("read %q, want only %q", src.opened, want)
		}
	}
}
