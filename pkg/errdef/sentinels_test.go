package errdef_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/build"
	"github.com/addonpack/addonpack/pkg/cache"
	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/convert"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/layout"
	"github.com/addonpack/addonpack/pkg/mirror"
	"github.com/addonpack/addonpack/pkg/policyexport"
	"github.com/addonpack/addonpack/pkg/preflight"
	"github.com/addonpack/addonpack/pkg/provenance"
	"github.com/addonpack/addonpack/pkg/prune"
	"github.com/addonpack/addonpack/pkg/push"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
	"github.com/addonpack/addonpack/pkg/render"
	"github.com/addonpack/addonpack/pkg/sbom"
	"github.com/addonpack/addonpack/pkg/scaffold"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/spec"
	"github.com/addonpack/addonpack/pkg/stack"
	"github.com/addonpack/addonpack/pkg/tufroot"
	"github.com/addonpack/addonpack/pkg/upgrade"
	"github.com/addonpack/addonpack/pkg/verify"
	"github.com/addonpack/addonpack/pkg/vet"
)

// sentinels is every exported Err* variable of every pkg/ package, keyed
// "dir.Name" (dir relative to pkg/). TestEverySentinelHasAClass checks the
// list against the parsed source, so a new sentinel cannot be forgotten here,
// and checks that each one is in exactly one errdef class — the class the
// CLI maps to its exit code.
var sentinels = map[string]error{
	"archive.ErrDuplicate":          archive.ErrDuplicate,
	"archive.ErrEntryType":          archive.ErrEntryType,
	"archive.ErrFileChanged":        archive.ErrFileChanged,
	"archive.ErrFormat":             archive.ErrFormat,
	"archive.ErrIgnoreFile":         archive.ErrIgnoreFile,
	"archive.ErrLimit":              archive.ErrLimit,
	"archive.ErrUnsafePath":         archive.ErrUnsafePath,
	"build.ErrRender":               build.ErrRender,
	"build.ErrSource":               build.ErrSource,
	"cache.ErrChanged":              cache.ErrChanged,
	"consume.ErrOptions":            consume.ErrOptions,
	"consume.ErrUnverifiable":       consume.ErrUnverifiable,
	"cache.ErrMiss":                 cache.ErrMiss,
	"cache.ErrOffline":              cache.ErrOffline,
	"config.ErrNoConfig":            config.ErrNoConfig,
	"config.ErrKubeVersion":         config.ErrKubeVersion,
	"convert.ErrConvert":            convert.ErrConvert,
	"upgrade.ErrBreaks":             upgrade.ErrBreaks,
	"deliver.ErrFormat":             deliver.ErrFormat,
	"deliver.ErrNotPatchable":       deliver.ErrNotPatchable,
	"errdef.ErrDigestMismatch":      errdef.ErrDigestMismatch,
	"errdef.ErrSizeMismatch":        errdef.ErrSizeMismatch,
	"keys.ErrExists":                keys.ErrExists,
	"keys.ErrKey":                   keys.ErrKey,
	"layout.ErrLayout":              layout.ErrLayout,
	"consume.ErrNotUsable":          consume.ErrNotUsable,
	"consume.ErrAmbiguousArg":       consume.ErrAmbiguousArg,
	"provenance.ErrInvalid":         provenance.ErrInvalid,
	"prune.ErrChanged":              prune.ErrChanged,
	"prune.ErrIndex":                prune.ErrIndex,
	"prune.ErrOptions":              prune.ErrOptions,
	"push.ErrUnresolvedImage":       push.ErrUnresolvedImage,
	"prune.ErrPins":                 prune.ErrPins,
	"prune.ErrUntagRemoved":         prune.ErrUntagRemoved,
	"prune.ErrTooMany":              prune.ErrTooMany,
	"atomicfile.ErrNotEmpty":        atomicfile.ErrNotEmpty,
	"registry.ErrDeleteUnsupported": registry.ErrDeleteUnsupported,
	"sbom.ErrDocument":              sbom.ErrDocument,
	"registry.ErrInvalidReference":  registry.ErrInvalidReference,
	"registry.ErrNotFound":          registry.ErrNotFound,
	"registry.ErrTooLarge":          registry.ErrTooLarge,
	"registry.ErrUnauthorized":      registry.ErrUnauthorized,
	"registry.ErrUnreachable":       registry.ErrUnreachable,
	"mirror.ErrFile":                mirror.ErrFile,
	"policyexport.ErrInexpressible": policyexport.ErrInexpressible,
	"preflight.ErrFailed":           preflight.ErrFailed,
	"preflight.ErrUnreachable":      preflight.ErrUnreachable,
	"preflight.ErrDenied":           preflight.ErrDenied,
	"preflight.ErrKubeconfig":       preflight.ErrKubeconfig,
	"upgrade.ErrValuesBreak":        upgrade.ErrValuesBreak,
	"upgrade.ErrUpgradable":         upgrade.ErrUpgradable,
	"stack.ErrPolicy":               stack.ErrPolicy,
	"stack.ErrDowngrade":            stack.ErrDowngrade,
	"stack.ErrSignerChange":         stack.ErrSignerChange,
	"errdef.ErrUsage":               errdef.ErrUsage,
	"mirror.ErrDrift":               mirror.ErrDrift,
	"mirror.ErrOptions":             mirror.ErrOptions,
	"mirror.ErrNotMirrorTarball":    mirror.ErrNotMirrorTarball,
	"relocate.ErrImagesWithMany":    relocate.ErrImagesWithMany,
	"relocate.ErrMalformedRecord":   relocate.ErrMalformedRecord,
	"relocate.ErrTooMany":           relocate.ErrTooMany,
	"render.ErrHelm":                render.ErrHelm,
	"render.ErrPlugin":              render.ErrPlugin,
	"render.ErrRemoteResource":      render.ErrRemoteResource,
	"render.ErrMissingFile":         render.ErrMissingFile,
	"render.ErrYAMLLimit":           render.ErrYAMLLimit,
	"scaffold.ErrExists":            scaffold.ErrExists,
	"schema.ErrExternalRef":         schema.ErrExternalRef,
	"schema.ErrInvalid":             schema.ErrInvalid,
	"schema.ErrLimit":               schema.ErrLimit,
	"schema.ErrObject":              schema.ErrObject,
	"schema.ErrSchema":              schema.ErrSchema,
	"semver.ErrAmbiguous":           semver.ErrAmbiguous,
	"semver.ErrNoMatch":             semver.ErrNoMatch,
	"semver.ErrRange":               semver.ErrRange,
	"semver.ErrVersion":             semver.ErrVersion,
	"sign.ErrSign":                  sign.ErrSign,
	"spec.ErrClaim":                 spec.ErrClaim,
	"spec.ErrInvalid":               spec.ErrInvalid,
	"stack.ErrDrift":                stack.ErrDrift,
	"stack.ErrLock":                 stack.ErrLock,
	"stack.ErrResolve":              stack.ErrResolve,
	"stack.ErrStack":                stack.ErrStack,
	"tufroot.ErrInitialRoot":        tufroot.ErrInitialRoot,
	"tufroot.ErrMetadata":           tufroot.ErrMetadata,
	"tufroot.ErrMismatch":           tufroot.ErrMismatch,
	"tufroot.ErrNoTarget":           tufroot.ErrNoTarget,
	"tufroot.ErrOptions":            tufroot.ErrOptions,
	"tufroot.ErrUnreachable":        tufroot.ErrUnreachable,
	"verify.ErrBlobTooLarge":        verify.ErrBlobTooLarge,
	"verify.ErrDigestClaim":         verify.ErrDigestClaim,
	"verify.ErrKeyWindow":           verify.ErrKeyWindow,
	"verify.ErrNotRemembered":       verify.ErrNotRemembered,
	"verify.ErrMalformed":           verify.ErrMalformed,
	"verify.ErrNoPolicy":            verify.ErrNoPolicy,
	"verify.ErrPayloadType":         verify.ErrPayloadType,
	"verify.ErrPolicy":              verify.ErrPolicy,
	"verify.ErrTrustMaterial":       verify.ErrTrustMaterial,
	"verify.ErrPredicateType":       verify.ErrPredicateType,
	"verify.ErrProvenance":          verify.ErrProvenance,
	"verify.ErrAttestation":         verify.ErrAttestation,
	"verify.ErrThreshold":           verify.ErrThreshold,
	"verify.ErrTooMany":             verify.ErrTooMany,
	"verify.ErrUnsigned":            verify.ErrUnsigned,
	"verify.ErrUntrusted":           verify.ErrUntrusted,
	"verify.ErrRootDigest":          verify.ErrRootDigest,
	"verify.ErrIdentity":            verify.ErrIdentity,
	"verify.ErrKeyless":             verify.ErrKeyless,
	"verify.ErrIdentityFlags":       verify.ErrIdentityFlags,
	"verify.ErrVerification":        verify.ErrVerification,
	"vet.ErrOptions":                vet.ErrOptions,
	"semver.ErrNotRepository":       semver.ErrNotRepository,
}

// The classes themselves are the roots, not sentinels of a class.
var roots = map[string]bool{
	"errdef.ErrInvalidArgument": true, "errdef.ErrInvalid": true, "errdef.ErrNotFound": true,
	"errdef.ErrUnreachable": true, "errdef.ErrDenied": true, "errdef.ErrIntegrity": true,
	"errdef.ErrVerification": true, "errdef.ErrExists": true, "errdef.ErrConflict": true,
	"errdef.ErrUnsupported": true,
}

func TestEverySentinelHasAClass(t *testing.T) {
	declared := exportedSentinels(t, "..")
	if len(declared) < len(sentinels) {
		t.Fatalf("parsed only %d sentinels under pkg/, the table has %d", len(declared), len(sentinels))
	}
	for name, pos := range declared {
		if roots[name] {
			continue
		}
		if _, ok := sentinels[name]; !ok {
			t.Errorf("%s: %s is not in the sentinels table of %s: add it there, made with errdef.New(class, ...)", pos, name, "pkg/errdef/sentinels_test.go")
		}
	}
	for name, err := range sentinels {
		if _, ok := declared[name]; !ok {
			t.Errorf("%s is in the sentinels table but not declared under pkg/: remove it", name)
			continue
		}
		var classes []error
		for _, c := range errdef.Classes() {
			if errors.Is(err, c) {
				classes = append(classes, c)
			}
		}
		switch {
		case len(classes) == 0:
			t.Errorf("%s (%q) has no errdef class: make it with errdef.New(class, ...)", name, err)
		case len(classes) > 1:
			t.Errorf("%s (%q) is in %d classes %v; want exactly one", name, err, len(classes), classes)
		}
	}
}

// exportedSentinels parses every non-test Go file under root and returns the
// exported package-level variables named Err*, keyed "dir.Name" with the
// position of their declaration.
func exportedSentinels(t *testing.T, root string) map[string]token.Position {
	t.Helper()
	fset := token.NewFileSet()
	found := map[string]token.Position{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.VAR {
				continue
			}
			for _, s := range gen.Specs {
				for _, id := range s.(*ast.ValueSpec).Names {
					if id.IsExported() && strings.HasPrefix(id.Name, "Err") {
						found[filepath.ToSlash(rel)+"."+id.Name] = fset.Position(id.Pos())
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
