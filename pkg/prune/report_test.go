package prune_test

import (
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/prune"
)

func TestReportWriteText(t *testing.T) {
	d := digest.FromString("release")
	item := prune.Item{Kind: prune.KindRelease, Digest: d, Tags: []string{"0.1.0"}}
	empty := &prune.Plan{Repository: "r.example/addons/hello", Keep: []prune.Kept{}, Delete: []prune.Item{}}
	plan := &prune.Plan{Repository: "r.example/addons/hello", Keep: []prune.Kept{}, Delete: []prune.Item{item}}
	for _, tc := range []struct {
		name string
		r    prune.Report
		want string
	}{
		{"nothing", prune.Report{DryRun: true, Plan: empty}, "repository r.example/addons/hello\nnothing to delete\n"},
		{"dry run", prune.Report{DryRun: true, Plan: plan}, "repository r.example/addons/hello\ndelete  " + item.String() + "\ndry run: nothing deleted (1 to delete; --yes deletes)\n"},
		{"done", prune.Report{Plan: plan, Result: &prune.Result{Repository: "r.example/addons/hello", Deleted: []prune.Item{item}}}, "deleted " + item.String() + "\n1 deleted from r.example/addons/hello\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := tc.r.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}
