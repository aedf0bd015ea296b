package render

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sync"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/openapi"

	"github.com/addonpack/addonpack/internal/tally"
)

// Input is what Build renders.
type Input struct {
	// Files is the package tree (os.DirFS of a source directory, or of an
	// unpacked artifact). Only regular files and directories are allowed.
	Files fs.FS
	// Root is the kustomization directory inside Files, a slash path;
	// "." (or "") for the top.
	Root string
	// Config is the optional config object as YAML (one document with
	// apiVersion, kind and metadata.name), annotated
	// config.kubernetes.io/local-config: "true" (overriding any value). It
	// replaces the root kustomization's resource holding an object of the
	// same apiVersion and kind, or is added to its resources, so the add-on's
	// replacements read it and kustomize leaves it out of the output.
	Config []byte
	// Components are optional extra component directories (slash paths
	// relative to Root) appended to the root kustomization's components.
	// Components it already lists, and repeats, are added once.
	Components []string
	// Images are kustomize `images` entries appended to the root
	// kustomization: how a relocated copy points the add-on's images at
	// the destination registry while their digests stay fixed.
	Images []Image
	// Patches are kustomize `patches` entries appended to the root
	// kustomization, as Flux (Kustomization spec.patches) and Argo CD
	// (source.kustomize.patches) append theirs: how a user's values reach
	// a package those controllers build from the registry.
	Patches []Patch
}

// mu guards kustomize's process-wide state: kyaml's openapi package holds
// the OpenAPI schema in globals that every build sets (krusty's
// Kustomizer.Run calls openapi.SetSchema) and that a kustomization's openapi
// field replaces (kustomize issue 4824). kyaml (v0.21) guards those globals
// with a lock of its own, so builds that use the default schema can run
// together: they hold mu for reading. A build whose kustomizations set the
// openapi field holds mu alone and resets the schema afterwards, so no
// other build ever sees its schema. TestBuildConcurrent and
// TestBuildConcurrentWithCustomOpenAPI run both kinds under the race
// detector. mu, warm and gc (gc.go) are this package's only package-level
// state.
var (
	mu   sync.RWMutex
	warm sync.Once // the default schema's first parse
)

// warmSchema parses kyaml's default schema in full. kyaml parses parts of it
// lazily, writing its globals from whichever build first needs them; parsed
// up front (first by warm, then by every build that reset it, each holding
// mu alone or inside warm.Do), builds on the default schema only read them.
func warmSchema() { openapi.Schema() }

// Build runs the kustomization at in.Root and returns the output as
// multi-document YAML (kustomize's own sorted output, "---" separated),
// byte-identical for identical input.
//
// Kustomize only sees an in-memory copy of in.Files: nothing on disk is read
// or written. Loads are restricted to the kustomization root, plugins other
// than kustomize's builtins are disabled, and helm is refused (ErrHelm).
// Before building, every kustomization reachable from Root (through
// resources, bases, components, generators, transformers and validators) is
// checked: entries must be files or directories inside the package, and
// loaded file paths (patches, generator sources, openapi.path, ...) must not
// be URLs; otherwise Build fails with a *RefusedError wrapping
// ErrRemoteResource, ErrHelm or ErrPlugin, naming the file and field.
//
// ctx is checked before starting and before running kustomize (Build calls
// are serialised); a running kustomize build cannot be interrupted.
// Kustomize's errors are wrapped, prefixed with the root:
// "kustomize build deploy/: ...". A panic inside kustomize (it has some, e.g.
// on a namespace containing a comma) is returned as an error.
func Build(ctx context.Context, in Input) ([]byte, error) {
	return guarded(ctx, in, build)
}

// guarded runs f on in's root with the checks and error form Build
// documents: the context first, a valid root, kustomize's panics returned
// as errors, errors prefixed "kustomize build ROOT/: ".
func guarded[T any](ctx context.Context, in Input, f func(context.Context, Input, string) (T, error)) (out T, err error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("kustomize build: %w", err)
	}
	root := path.Clean(in.Root) // "" becomes "."
	if !fs.ValidPath(root) {
		return zero, fmt.Errorf("kustomize build: invalid root %q: want a slash path inside the package", in.Root)
	}
	prefix := "kustomize build " + displayDir(root)
	defer func() {
		if r := recover(); r != nil {
			out, err = zero, fmt.Errorf("%s: %w: %v", prefix, errPanic, r)
		}
	}()
	out, err = f(ctx, in, root)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", prefix, err)
	}
	return out, nil
}

func build(ctx context.Context, in Input, root string) ([]byte, error) {
	tree, c, _, err := prepare(in, root)
	if err != nil {
		return nil, err
	}
	return run(ctx, tree, root, c.openAPI)
}

// prepare copies the package into memory, injects the config and components
// into the root kustomization and checks everything kustomize would load.
// It returns the paths it wrote.
func prepare(in Input, root string) (*pkgTree, *checker, []string, error) {
	tree, err := loadTree(in.Files)
	if err != nil {
		return nil, nil, nil, err
	}
	if !tree.dir(root) {
		return nil, nil, nil, fmt.Errorf("root %s is not a directory of the package", displayDir(root))
	}
	c := newChecker(tree)
	kfile, err := c.kustomizationFile(root)
	if err != nil {
		return nil, nil, nil, err
	}
	written, err := inject(tree, root, kfile, in.Config, in.Components, in.Images, in.Patches)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := c.checkDir(root); err != nil {
		return nil, nil, nil, err
	}
	return tree, c, written, nil
}

// run runs kustomize on the checked in-memory tree, holding mu, and returns
// its output as YAML.
func run(ctx context.Context, tree *pkgTree, root string, customOpenAPI bool) (out []byte, err error) {
	err = runWith(ctx, tree, root, customOpenAPI, func(m resmap.ResMap) error {
		out, err = m.AsYaml()
		if err != nil {
			return fmt.Errorf("encoding output: %w", err)
		}
		return nil
	})
	return out, err
}

// runWith runs kustomize on the checked in-memory tree and hands the result
// to use, all while holding mu (alone for a custom OpenAPI schema).
func runWith(ctx context.Context, tree *pkgTree, root string, customOpenAPI bool, use func(resmap.ResMap) error) (err error) {
	if customOpenAPI {
		mu.Lock()
		defer mu.Unlock()
	} else {
		mu.RLock()
		defer mu.RUnlock()
		warm.Do(warmSchema)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	defer gc.during()()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", errKustomizePanic, r)
		}
	}()
	if customOpenAPI {
		// The schema chosen by this build's openapi field would otherwise
		// stay in kyaml's globals for later builds; parse the default one
		// again before they run.
		defer warmSchema()
		defer openapi.ResetOpenAPI()
	}
	opts := &krusty.Options{
		// Unspecified: the kustomization's sortOptions if any, else
		// kustomize's legacy order, as the kustomize CLI does.
		Reorder:           krusty.ReorderOptionUnspecified,
		AddManagedbyLabel: false,
		LoadRestrictions:  types.LoadRestrictionsRootOnly,
		PluginConfig:      types.DisabledPluginConfig(),
	}
	tally.Add(ctx, tally.KustomizeBuild)
	m, err := krusty.MakeKustomizer(opts).Run(tree.mem, memPath(root))
	if tree.lazy.refused != nil {
		return tree.lazy.refused
	}
	if err != nil {
		if types.IsErrOnlyBuiltinPluginsAllowed(err) {
			return fmt.Errorf("%w: %w", ErrPlugin, err)
		}
		return err
	}
	return use(m)
}
