package upgrade

import (
	"context"
	"fmt"
	"io"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/stack"
)

// Request is what to plan: a locked stack (Stack and its Steps, from
// stack.Locked), or one add-on at Ref (REPO:TAG or REPO@DIGEST) with the
// user's Values (nil for none; ValuesName is the file as messages show it).
type Request struct {
	Stack      *stack.Stack
	Steps      []stack.Step
	Ref        registry.Reference
	Values     []byte
	ValuesName string
}

// ReadRequest reads what a plan needs: the stack file at stackFile and its
// lock (stack.Locked); or the reference refArg, which names a tag or a
// digest, and the values file ("" for none; "-" reads stdin).
func ReadRequest(stackFile, refArg, valuesFile string, stdin io.Reader) (Request, error) {
	var req Request
	var err error
	if stackFile != "" {
		req.Stack, req.Steps, err = stack.Locked(stackFile)
		return req, err
	}
	if req.Ref, err = consume.ParseReference(refArg); err != nil {
		return req, err
	}
	if req.Ref.Tag == "" && req.Ref.Digest == "" {
		return req, fmt.Errorf("%s: %w: name the release to plan from (REPO:TAG)", refArg, registry.ErrInvalidReference)
	}
	if valuesFile != "" {
		req.Values, req.ValuesName, err = config.ReadValues(valuesFile, stdin)
	}
	return req, err
}

// Run plans req (specs/stack.md section 4.7): every add-on of the stack at
// its locked version, with the values the stack file gives it, bound by
// every range the lock records on it and the stack's upgrade policy; or
// the one add-on at Ref under the default policy.
func Run(ctx context.Context, opts PlanOptions, req Request) (*Plan, error) {
	if req.Stack == nil {
		return MakePlan(ctx, opts, []Subject{{Ref: req.Ref, Values: req.Values, ValuesName: req.ValuesName}})
	}
	var subjects []Subject
	for _, s := range req.Steps {
		sub := Subject{Name: s.Name, Ref: s.Ref, Version: s.Version, Policy: req.Stack.UpgradePolicy(s.Ref.Repo())}
		for _, r := range s.RequiredBy {
			if r.Digest != "" {
				sub.Pinned = true
			} else {
				sub.Ranges = append(sub.Ranges, r.Version)
			}
		}
		if s.Values != "" {
			var err error
			if sub.Values, sub.ValuesName, err = config.ReadValues(s.Values, nil); err != nil {
				return nil, err
			}
		}
		subjects = append(subjects, sub)
	}
	return MakePlan(ctx, opts, subjects)
}

// PlanStack plans the stack file at file with the lock beside it (Run).
func PlanStack(ctx context.Context, opts PlanOptions, file string) (*Plan, error) {
	st, steps, err := stack.Locked(file)
	if err != nil {
		return nil, err
	}
	return Run(ctx, opts, Request{Stack: st, Steps: steps})
}

// PlanRef plans the add-on at ref with the user's values (Run).
func PlanRef(ctx context.Context, opts PlanOptions, ref registry.Reference, values []byte, valuesName string) (*Plan, error) {
	return Run(ctx, opts, Request{Ref: ref, Values: values, ValuesName: valuesName})
}
