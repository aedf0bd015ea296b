package commands

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
)

// versionHelp is the paragraph of --version in each verb's long help.
const versionHelp = `--version RANGE, with REF naming a repository without a tag, uses the highest version the
semver range matches (a pre-release only where the range names one: specs/stack.md), resolved
once to a digest and used as REPO:TAG@DIGEST ("resolved …" on stderr): verified, fetched by
that digest, and refused unless the signed add-on's version is the tag's.`

// versionFlag is --version RANGE of the single-add-on consumer verbs: REF
// names a repository without a tag, and the highest version the range
// matches is resolved once to a digest (semver.Pin) and used as
// REPO:TAG@DIGEST, so the usual consumer path verifies it, fetches by the
// digest and binds the signed version to the tag (specs/stack.md 2.5).
type versionFlag struct{ text string }

func (v *versionFlag) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&v.text, "version", "", `with REF naming a repository (no tag): use the highest version this semver range matches (specs/stack.md), resolved once to a digest`)
}

// pin returns arg as it is without --version; with it, arg must be a
// registry repository without a tag or digest, and the pinned reference
// REPO:TAG@DIGEST is returned after "resolved …" is written to stderr.
func (v *versionFlag) pin(ctx context.Context, g *globals, arg string) (string, error) {
	if v.text == "" {
		return arg, nil
	}
	repo, r, c, err := v.target(g, arg)
	if err != nil {
		return "", err
	}
	res, err := semver.Pin(ctx, c, repo, r, semver.RepoOptions{})
	if err != nil {
		return "", err
	}
	semver.Announce(g.streams.Err, res)
	return res.Ref.String(), nil
}

// pinOrNone is pin for a command that accepts there being no version yet
// (check-upgrade --allow-first-release): "" and why when there is none
// (semver.PinOrNone).
func (v *versionFlag) pinOrNone(ctx context.Context, g *globals, arg string) (ref, none string, err error) {
	repo, r, c, err := v.target(g, arg)
	if err != nil {
		return "", "", err
	}
	res, none, err := semver.PinOrNone(ctx, c, repo, r, semver.RepoOptions{})
	if none != "" || err != nil {
		return "", none, err
	}
	semver.Announce(g.streams.Err, res)
	return res.Ref.String(), "", nil
}

// target checks --version and arg (consume.VersionTarget) and returns the
// repository, the range and the registry client to resolve them with.
func (v *versionFlag) target(g *globals, arg string) (registry.Reference, semver.Range, *registry.Client, error) {
	repo, r, err := consume.VersionTarget(arg, v.text, g.offline)
	if err != nil {
		return registry.Reference{}, semver.Range{}, nil, usage(err)
	}
	c, err := g.client()
	return repo, r, c, err
}

// pinRepositories pins, with --version, every argument that names a
// registry repository without a tag or digest (diff compares a pinned
// version with a tag or a directory); at least one must.
func (v *versionFlag) pinRepositories(ctx context.Context, g *globals, args []string) ([]string, error) {
	if v.text == "" {
		return args, nil
	}
	out := append([]string(nil), args...)
	pinned := 0
	for i, arg := range args {
		if !consume.IsBareRepository(arg) {
			continue
		}
		p, err := v.pin(ctx, g, arg)
		if err != nil {
			return nil, err
		}
		out[i], pinned = p, pinned+1
	}
	if pinned == 0 {
		return nil, usageError{fmt.Errorf("--version: none of %v names a repository without a tag or digest", args)}
	}
	return out, nil
}

// refuse is the usage error of --version where it does not apply.
func (v *versionFlag) refuse(why string) error {
	if v.text == "" {
		return nil
	}
	return usageError{fmt.Errorf("--version cannot be used with %s", why)}
}
