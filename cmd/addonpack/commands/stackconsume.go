package commands

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/addonpack/addonpack/pkg/artifact"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/pull"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/semver"
	"github.com/addonpack/addonpack/pkg/stack"
)

// stackConsumer is the stack's view of the consumer path (pkg/consume):
// each reference resolved once and verified under its own repository's
// scope with the command's trust flags, then loaded, fetched or pulled.
type stackConsumer struct {
	g  *globals
	vf *verifyFlags
	// kube is the target Kubernetes version every opened package gets.
	kube semver.Version
}

// open opens ref on the consumer path, bound to the add-on name the stack
// expects: that is the claim, whatever the repository is called
// (specs/artifact.md section 11.6).
func (c stackConsumer) open(ctx context.Context, ref registry.Reference, name string) (*consume.Artifact, error) {
	o, err := c.g.consumeOptions(ctx, c.vf)
	if err != nil {
		return nil, err
	}
	if name != "" {
		o.Name = name
	}
	return consume.OpenReference(ref, o)
}

func (c stackConsumer) Load(ctx context.Context, ref registry.Reference, name string) (*artifact.Loaded, error) {
	a, err := c.open(ctx, ref, name)
	if err != nil {
		return nil, err
	}
	return a.Load(ctx)
}

func (c stackConsumer) Open(ctx context.Context, ref registry.Reference, name string) (*deliver.Package, error) {
	a, err := c.open(ctx, ref, name)
	if err != nil {
		return nil, err
	}
	p, err := deliver.Fetch(ctx, a.Source, a.PullOptions())
	if err != nil {
		return nil, err
	}
	p.KubeVersion = c.kube
	p.Log = c.g.streams.Err
	return p, nil
}

func (c stackConsumer) Pull(ctx context.Context, ref registry.Reference, name, dir string) error {
	a, err := c.open(ctx, ref, name)
	if err != nil {
		return err
	}
	_, err = a.Pull(ctx, dir, pull.Options{})
	return err
}

// lockedSteps reads the stack file and its lock and returns the add-ons in
// install order; the stack file's policy becomes the trust of a command
// given none.
func (g *globals) lockedSteps(file string, vf *verifyFlags) ([]stack.Step, *stack.Stack, error) {
	st, err := stack.Load(file)
	if err != nil {
		return nil, nil, err
	}
	l, err := stack.ReadLock(stack.LockPath(file))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s: no lock beside the stack file: run addonpack lock %s first: %w", stack.LockPath(file), file, err)
	}
	if err != nil {
		return nil, nil, err
	}
	vf.defaultPolicy(st.Dir(), st.Policy)
	steps, err := stack.Steps(st, l)
	return steps, st, err
}
