package commands

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/addonpack/addonpack/pkg/stack"
)

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
