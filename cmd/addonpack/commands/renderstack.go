package commands

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/config"
	"github.com/addonpack/addonpack/pkg/consume"
	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/stack"
)

// renderStack renders every add-on of a locked stack, in install order.
func (g *globals) renderStack(cmd *cobra.Command, file, format, out string, force bool, tool, keyFile, kubeVersion string, gitops deliver.GitOps, vf *verifyFlags) error {
	ctx := cmd.Context()
	st, steps, c, err := g.lockedStack(ctx, file, vf)
	if err != nil {
		return err
	}
	if kubeVersion == "" {
		kubeVersion = st.Kubernetes
	}
	if c.KubeVersion, err = config.KubeVersionFlag(kubeVersion); err != nil {
		return err
	}
	if tool != "" {
		if gitops.PublicKey, err = c.UseFluxKey(cmd.Context(), keyFile, g.getenv); err != nil {
			return err
		}
		gitops.PlainHTTP = g.plainHTTP
		b, err := stack.GitOps(ctx, c, steps, tool, gitops)
		if err != nil {
			return err
		}
		return g.write("-", b)
	}
	switch format {
	case "kustomize":
		if out == "" || out == "-" {
			return usageError{fmt.Errorf("--format kustomize writes a directory: pass -o DIR")}
		}
		if err := stack.WriteKustomize(ctx, c, steps, out, force); err != nil {
			return err
		}
		fmt.Fprintf(g.streams.Err, "Wrote %s: apply each directory of %s/%s in order\n", out, out, stack.OrderFile)
		return nil
	case "yaml":
		b, err := stack.Render(ctx, c, steps)
		if err != nil {
			return err
		}
		return g.write(out, b)
	}
	return usageError{fmt.Errorf("--format %q with --stack: want yaml or kustomize", format)}
}

// pullStack pulls every add-on of a locked stack into dir/NAME.
func (g *globals) pullStack(cmd *cobra.Command, file, dir string, force bool, vf *verifyFlags) error {
	_, steps, c, err := g.lockedStack(cmd.Context(), file, vf)
	if err != nil {
		return err
	}
	if err := stack.Pull(cmd.Context(), c, steps, dir, force); err != nil {
		return err
	}
	for _, s := range steps {
		fmt.Fprintf(g.streams.Out, "Pulled %s %s (%s) into %s\n", s.Name, s.Version, s.Ref, filepath.Join(dir, s.Name))
	}
	return nil
}

// lockedStack reads a locked stack file (stack.Locked) and makes the
// consumer its add-ons are opened through: the stack file's policy is the
// trust of a command given none.
func (g *globals) lockedStack(ctx context.Context, file string, vf *verifyFlags) (*stack.Stack, []stack.Step, *consume.Consumer, error) {
	st, steps, err := stack.Locked(file)
	if err != nil {
		return nil, nil, nil, err
	}
	vf.DefaultPolicy(st.Dir(), st.Policy)
	c, err := g.consumer(ctx, vf)
	return st, steps, c, err
}
