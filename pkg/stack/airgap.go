package stack

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/atomicfile"
	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
)

// TarballStackFile is the stack file a stack tarball carries beside its
// OCI layout, next to its lock (LockName) (specs/stack.md section 4.4).
const TarballStackFile = "addons.yaml"

// ExportTarball writes every add-on of st's lock l — read by its locked
// digest, with its signatures, attestations and referrers, and verified
// under the scope of its own repository when opts.Policy is set — into one
// OCI layout tarball at path, each tagged NAME-TAG (NAME for a root pinned
// by digest) in index.json, with the stack file, the lock and the values
// files the stack file names as top-level files, and the trusted root
// opts.CarryTrustedRoot names (relocate.ToTarballMany). The tarball is
// written atomically: a failure leaves nothing.
func ExportTarball(ctx context.Context, c *registry.Client, st *Stack, l *Lock, path string, opts relocate.Options) ([]*relocate.Result, error) {
	if _, err := Steps(st, l); err != nil { // the lock holds every root
		return nil, err
	}
	stackBytes, err := readBounded(st.Path)
	if err != nil {
		return nil, err
	}
	lockBytes, err := l.Marshal()
	if err != nil {
		return nil, err
	}
	var entries []relocate.Entry
	for _, a := range l.Addons {
		ref, err := lockedRef(a, a.Repository)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", LockPath(st.Path), err)
		}
		tag := a.Name
		if a.Tag != "" {
			tag += "-" + a.Tag
		}
		entries = append(entries, relocate.Entry{Ref: ref, Name: a.Name, LayoutTag: tag})
	}
	files, err := valuesFiles(st)
	if err != nil {
		return nil, err
	}
	files[TarballStackFile], files[LockName] = stackBytes, lockBytes
	return relocate.ToTarballMany(ctx, c, entries, path, files, opts)
}

// ImportTarball pushes every add-on of the stack tarball at path (written
// by ExportTarball) to prefix/NAME — verified in the tarball, and again at
// its destination, under the scope of that repository, before any tag is
// set — and writes the tarball's stack file, rewritten for the new
// location (Relocated), to stackOut, its lock beside it and the values
// files it carries at their paths; a trusted root it carries is checked
// first, as the lock is (relocate.CheckCarriedTrustedRoot; writing it out
// is the caller's, relocate.ExtractTrustedRoot). None may exist yet (errdef.ErrExists);
// they are written only when every add-on copied and verified.
func ImportTarball(ctx context.Context, c *registry.Client, path string, prefix registry.Reference, stackOut string, opts relocate.Options) (*Lock, []*relocate.Result, error) {
	if prefix.Tag != "" || prefix.Digest != "" {
		return nil, nil, fmt.Errorf("%s: %w: the destination of a stack is a registry and path prefix, without a tag or digest", prefix, errdef.ErrInvalidArgument)
	}
	for _, p := range []string{stackOut, LockPath(stackOut)} {
		if _, err := os.Lstat(p); err == nil {
			return nil, nil, fmt.Errorf("%s: %w: remove it or choose another stack file", p, errdef.ErrExists)
		}
	}
	sb, err := relocate.ReadLayoutFile(path, TarballStackFile, maxFileBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w (not a stack tarball: copy --stack FILE --to-tarball writes one)", err, ErrStack)
	}
	st, err := Parse(sb, stackOut)
	if err != nil {
		return nil, nil, err
	}
	lb, err := relocate.ReadLayoutFile(path, LockName, maxFileBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", err, ErrStack)
	}
	l, err := parseLock(lb, path+":"+LockName)
	if err != nil {
		return nil, nil, err
	}
	newStack, newLock, err := Relocated(st, l, prefix)
	if err != nil {
		return nil, nil, err
	}
	values, err := readCarriedValues(path, st, stackOut)
	if err != nil {
		return nil, nil, err
	}
	if _, err := relocate.CheckCarriedTrustedRoot(path); err != nil { // like the lock
		return nil, nil, err
	}
	var entries []relocate.Entry
	for _, a := range newLock.Addons {
		ref, err := lockedRef(a, a.Repository)
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, relocate.Entry{Ref: ref, Name: a.Name})
	}
	results, err := relocate.FromTarballMany(ctx, c, path, entries, opts)
	if err != nil {
		return nil, nil, err
	}
	if err := writeCarried(values); err != nil {
		return nil, nil, err
	}
	if err := writeBoth(stackOut, newStack, newLock); err != nil {
		for _, v := range values {
			os.Remove(v.path)
		}
		return nil, nil, err
	}
	return newLock, results, nil
}

// Relocated rewrites a stack file and its lock for a copy of every add-on
// to prefix/NAME: each repository becomes prefix's repository followed by
// the add-on's name, so that the name claim holds by the repository alone.
// Versions, tags, digests, levels, requirements and the order are kept; so
// are the stack file's names, values and policy.
func Relocated(st *Stack, l *Lock, prefix registry.Reference) (*Stack, *Lock, error) {
	if _, err := Steps(st, l); err != nil {
		return nil, nil, err
	}
	moved := map[string]string{} // old repository → new
	nl := *l
	nl.Addons = nil
	for _, a := range l.Addons {
		repo := prefix.Repo() + "/" + a.Name
		if _, err := registry.ParseReference(repo); err != nil {
			return nil, nil, fmt.Errorf("%s: %w: %w", a.Name, ErrStack, err)
		}
		moved[a.Repository] = repo
		a.Repository = repo
		nl.Addons = append(nl.Addons, a)
	}
	ns := *st
	ns.Addons = nil
	for _, e := range st.Addons {
		e.Repository = moved[e.repo.Repo()]
		ns.Addons = append(ns.Addons, e)
	}
	b, err := ns.Marshal()
	if err != nil {
		return nil, nil, err
	}
	out, err := Parse(b, st.Path)
	if err != nil {
		return nil, nil, err
	}
	return out, &nl, nil
}

// Marshal writes the stack file as YAML, keys in the order of
// specs/stack.md section 4.
func (s *Stack) Marshal() ([]byte, error) {
	type entry struct {
		Name       string        `yaml:"name,omitempty"`
		Repository string        `yaml:"repository"`
		Version    string        `yaml:"version,omitempty"`
		Digest     digest.Digest `yaml:"digest,omitempty"`
		Values     string        `yaml:"values,omitempty"`
		Upgrade    string        `yaml:"upgrade,omitempty"`
	}
	out := struct {
		APIVersion string  `yaml:"apiVersion"`
		Kind       string  `yaml:"kind"`
		Addons     []entry `yaml:"addons"`
		Policy     string  `yaml:"policy,omitempty"`
		Upgrade    string  `yaml:"upgrade,omitempty"`
	}{APIVersion: s.APIVersion, Kind: s.Kind, Policy: s.Policy, Upgrade: s.Upgrade}
	for _, e := range s.Addons {
		out.Addons = append(out.Addons, entry{e.Name, e.Repository, e.Version, e.Digest, e.Values, e.Upgrade})
	}
	return marshalYAML(out)
}

// lockedRef is the locked add-on a in repository repo: REPO:TAG@DIGEST
// (REPO@DIGEST without a tag).
func lockedRef(a LockedAddon, repo string) (registry.Reference, error) {
	ref, err := registry.ParseReference(repo)
	if err != nil {
		return ref, fmt.Errorf("%s: %w: %w", a.Name, ErrStack, err)
	}
	ref.Tag, ref.Digest = a.Tag, a.Digest
	return ref, nil
}

// writeBoth writes the stack file at path and its lock beside it, each
// atomically and neither over an existing file; a failure removes what
// was written.
func writeBoth(path string, st *Stack, l *Lock) error {
	b, err := st.Marshal()
	if err != nil {
		return err
	}
	lb, err := l.Marshal()
	if err != nil {
		return err
	}
	lockPath := LockPath(path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(lockPath, lb, false); err != nil {
		return fmt.Errorf("%s: %w", lockPath, err)
	}
	if err := atomicfile.Write(path, b, false); err != nil {
		os.Remove(lockPath)
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// StackCopy is what copy --stack did: each add-on's copy and the lock it
// carried (export) or wrote (import).
type StackCopy struct {
	Copies []*relocate.Result `json:"copies"`
	Lock   *Lock              `json:"lock"`
	// Wrote is what was written: the tarball, or the stack file and its lock.
	Wrote string `json:"-"`
}

// CopyStack is copy --stack FILE: with toTarball, every add-on of the lock
// of st (FILE, loaded) into one tarball (ExportTarball); otherwise every
// add-on of the stack tarball fromTarball to dst/NAME, then FILE and its
// lock written for there (ImportTarball).
func CopyStack(ctx context.Context, c *registry.Client, st *Stack, file, toTarball, fromTarball string, dst registry.Reference, opts relocate.Options) (*StackCopy, error) {
	if toTarball != "" {
		l, err := ReadLock(LockPath(file))
		if err != nil {
			return nil, err
		}
		results, err := ExportTarball(ctx, c, st, l, toTarball, opts)
		if err != nil {
			return nil, err
		}
		return &StackCopy{Copies: results, Lock: l, Wrote: toTarball}, nil
	}
	l, results, err := ImportTarball(ctx, c, fromTarball, dst, file, opts)
	if err != nil {
		return nil, err
	}
	return &StackCopy{Copies: results, Lock: l, Wrote: filepath.Clean(file) + " and " + LockPath(file)}, nil
}

// WriteText prints each copy on log and what was written on w.
func (s *StackCopy) WriteText(w, log io.Writer) error {
	for _, r := range s.Copies {
		fmt.Fprintf(log, "copied %s -> %s (%d manifests)\n", r.Source, r.Destination, len(r.Items))
	}
	_, err := fmt.Fprintf(w, "wrote %s\n", s.Wrote)
	return err
}
