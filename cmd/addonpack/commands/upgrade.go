package commands

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/upgrade"
)

// newUpgrade is `upgrade`, which groups `upgrade plan`.
func newUpgrade(g *globals) *cobra.Command {
	var (
		f          format
		vf         verifyFlags
		file, vals string
	)
	plan := &cobra.Command{
		Use:   "plan (--stack FILE | REF --values FILE)",
		Short: "Show what each add-on can upgrade to and whether your values survive it",
		Long: `plan shows, per add-on of the stack's lock (or REF), the newest version its upgrade policy allows and
the newest there is, whether your values convert and validate against each (config blobs only) and what
check-upgrade says. Exit 0: nothing to do; 10: upgrades available; 3: a candidate breaks your values.`,
		Example: `  addonpack upgrade plan --stack addons.yaml --key release.pub
  addonpack upgrade plan localhost:5000/addons/hello:0.2.0 --values my-hello.yaml --key release.pub --format json`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (file == "") == (len(args) == 0) || file != "" && vals != "" {
				return usageError{fmt.Errorf("give --stack FILE, or REF with --values FILE")}
			}
			req, err := upgrade.ReadRequest(file, strings.Join(args, ""), vals, g.streams.In) // args: REF or nothing
			if err != nil {
				return err
			}
			if req.Stack != nil {
				vf.DefaultPolicy(req.Stack.Dir(), req.Stack.Policy) // the stack file's, given no trust
			}
			c, err := g.consumer(cmd.Context(), &vf)
			if err != nil {
				return err
			}
			p, err := upgrade.Run(cmd.Context(), upgrade.PlanOptions{Tags: c.Client, Fetch: c}, req)
			if err != nil {
				return err
			}
			return cmp.Or(f.print(g.streams.Out, p, p.WriteText), p.Err()) // a failed print first, then the verdict
		},
	}
	plan.Flags().StringVar(&file, "stack", "", "plan every add-on of this stack file's lock, with its values")
	plan.Flags().StringVar(&vals, "values", "", "with REF: your config object (YAML or JSON; - for stdin)")
	addFormat(plan, &f, true)
	vf.add(plan, true)
	cmd := &cobra.Command{Use: "upgrade", Short: "Plan the upgrades of add-ons before anything moves"}
	cmd.AddCommand(plan)
	return cmd
}
