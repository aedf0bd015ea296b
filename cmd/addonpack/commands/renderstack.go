package commands

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/deliver"
	"github.com/addonpack/addonpack/pkg/stack"
)

// renderStack renders every add-on of a locked stack, in install order.
func (g *globals) renderStack(cmd *cobra.Command, file, format, out string, force bool, tool, keyFile, kubeVersion string, gitops deliver.GitOps, vf *verifyFlags) error {
	ctx := cmd.Context()
	st, steps, err := stack.Locked(file)
	if err != nil {
		return err
	}
	vf.defaultPolicy(st.Dir(), st.Policy) // the stack file's policy, for a command given no trust
	if kubeVersion == "" {
		kubeVersion = st.Kubernetes
	}
	kube, err := g.kubeVersion(kubeVersion)
	if err != nil {
		return err
	}
	c, err := g.consumer(cmd.Context(), vf)
	if err != nil {
		return err
	}
	c.KubeVersion = kube
	if tool != "" {
		if gitops.PublicKey, err = g.fluxKey(cmd.Context(), c, keyFile); err != nil {
			return err
		}
		gitops.PlainHTTP = g.plainHTTP
		b, err := stack.GitOps(ctx, c, steps, tool, gitops)
		if err != nil {
			return err
		}
		_, err = g.streams.Out.Write(b)
		return err
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
		if out == "" || out == "-" {
			_, err = g.streams.Out.Write(b)
			return err
		}
		return os.WriteFile(out, b, 0o644)
	}
	return usageError{fmt.Errorf("--format %q with --stack: want yaml or kustomize", format)}
}

// pullStack pulls every add-on of a locked stack into dir/NAME.
func (g *globals) pullStack(cmd *cobra.Command, file, dir string, force bool, vf *verifyFlags) error {
	st, steps, err := stack.Locked(file)
	if err != nil {
		return err
	}
	vf.defaultPolicy(st.Dir(), st.Policy) // the stack file's policy, for a command given no trust
	c, err := g.consumer(cmd.Context(), vf)
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
