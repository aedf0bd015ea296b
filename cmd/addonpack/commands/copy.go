package commands

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/relocate"
)

// copyOptions are the flags of copy.
type copyOptions struct {
	g            *globals
	vf           verifyFlags
	f            format
	toTarball    string
	fromTarball  string
	maxReferrers int
	images       bool
	vr           versionFlag
	stk          string
	carryRoot    string
	rootOut      string
}

func newCopy(g *globals) *cobra.Command {
	o := &copyOptions{g: g}
	cmd := &cobra.Command{
		Use:   "copy (SRC DST | SRC --to-tarball OUT | --from-tarball IN DST | --stack FILE --to-tarball OUT | --stack FILE --from-tarball IN DST) (--key PUB | --policy FILE | --insecure-skip-verify)",
		Short: "Copy an artifact with its signatures, attestations and referrers to another registry or an air gap",
		Long:  copyHelp,
		Example: `  addonpack copy localhost:5000/addons/hello:0.1.0 localhost:5000/mirror/hello --key release.pub
  addonpack copy localhost:5000/addons/hello:0.1.0 --to-tarball hello.tar --key release.pub
  addonpack copy --from-tarball hello.tar localhost:5000/airgap/hello --key release.pub
  addonpack copy localhost:5000/addons/hello:0.1.0 --to-tarball hello-root.tar --carry-trusted-root sigstore-root.json --key release.pub
  addonpack copy --from-tarball hello-root.tar localhost:5000/airgap/hello --trusted-root-out trusted_root.json --key release.pub
  addonpack copy localhost:5000/addons/hello localhost:5000/mirror/hello --version 0.x --key release.pub
  addonpack copy --stack addons.yaml --to-tarball stack.tar --key release.pub
  addonpack copy --stack airgap/addons.yaml --from-tarball stack.tar localhost:5000/airgap --key release.pub`,
		Args: o.args,
		RunE: o.run,
	}
	o.vf.add(cmd, true)
	o.vr.add(cmd)
	fl := cmd.Flags()
	fl.StringVar(&o.toTarball, "to-tarball", "", "write SRC with its signatures and referrers to this OCI layout tarball instead of a registry")
	fl.StringVar(&o.fromTarball, "from-tarball", "", "push the artifact of this OCI layout tarball (FILE or FILE:TAG), with its signatures and referrers, to DST")
	fl.StringVar(&o.stk, "stack", "", "copy every add-on of this locked stack: to --to-tarball OUT, or from a stack tarball (--from-tarball IN DST) to DST/NAME, writing this stack file and its lock for there")
	fl.StringVar(&o.carryRoot, "carry-trusted-root", "", "with --to-tarball: also store this Sigstore trusted_root.json in the tarball, for keyless verification on the other side")
	fl.StringVar(&o.rootOut, "trusted-root-out", "", "with --from-tarball: write the trusted root the tarball carries to this file, for a --policy that pins its digest")
	fl.BoolVar(&o.images, "images", false, "also copy every container image the add-on lists, by digest, beside it (DST/<image repository>), and record the relocation for render")
	fl.IntVar(&o.maxReferrers, "max-referrers", 0, fmt.Sprintf("most referrers to copy per manifest; more fails (default %d)", relocate.DefaultMaxReferrers))
	addFormat(cmd, &o.f, true)
	return cmd
}

// request is what the flags ask for.
func (o *copyOptions) request() relocate.Request {
	return relocate.Request{ToTarball: o.toTarball, FromTarball: o.fromTarball, Stack: o.stk != "",
		CarryTrustedRoot: o.carryRoot, TrustedRootOut: o.rootOut, KeylessRoot: o.vf.Keyless.TrustedRoot != ""}
}

// args checks the arguments against the mode the flags choose.
func (o *copyOptions) args(_ *cobra.Command, args []string) error {
	return usage(o.request().CheckArgs(len(args)))
}

// run copies one artifact (or, with --stack, a locked stack).
func (o *copyOptions) run(cmd *cobra.Command, args []string) (err error) {
	ctx := cmd.Context()
	if err := usage(o.request().CheckTrustedRoot()); err != nil {
		return err
	}
	var rootDigest string
	if o.rootOut != "" {
		d, created, xerr := relocate.ExtractTrustedRoot(o.fromTarball, o.rootOut)
		if xerr != nil {
			return xerr
		}
		if created { // the named result err: removed when the copy fails
			defer func() {
				if err != nil {
					os.Remove(o.rootOut)
				}
			}()
		}
		rootDigest = d
		fmt.Fprintf(o.g.streams.Err, "trusted root %s from the tarball written to %s (trusted only where a policy pins this digest)\n", d, o.rootOut)
	}
	if o.stk != "" {
		if err := o.vr.refuse("--stack: the lock pins every add-on"); err != nil {
			return err
		}
		return o.g.copyStack(cmd, o.stk, args, o.toTarball, o.fromTarball, &o.vf, relocate.Options{MaxReferrers: o.maxReferrers, Images: o.images, CarryTrustedRoot: o.carryRoot}, o.f)
	}
	p, err := o.vf.policy(ctx, o.g)
	if err != nil {
		return err
	}
	if o.fromTarball != "" {
		err = o.vr.refuse("--from-tarball: the tarball holds the artifact to copy")
	} else {
		args[0], err = o.vr.pin(ctx, o.g, args[0])
	}
	if err != nil {
		return err
	}
	refs := make([]registry.Reference, len(args))
	for i, a := range args {
		if refs[i], err = o.g.reference(a); err != nil {
			return err
		}
	}
	c, err := o.g.client()
	if err != nil {
		return err
	}
	if p == nil {
		fmt.Fprintln(o.g.streams.Err, "Warning: --insecure-skip-verify: the copy is not verified at the source nor at the destination")
	}
	opts := relocate.Options{Policy: p, MaxReferrers: o.maxReferrers, Images: o.images, Name: o.vf.name, CarryTrustedRoot: o.carryRoot}
	var res *relocate.Result
	done := o.g.progress.Activity("Copying " + args[0])
	switch {
	case o.toTarball != "":
		res, err = relocate.ToTarball(ctx, c, refs[0], o.toTarball, opts)
	case o.fromTarball != "":
		res, err = relocate.FromTarball(ctx, c, o.fromTarball, refs[0], opts)
	default:
		res, err = relocate.Copy(ctx, c, refs[0], refs[1], opts)
	}
	done(err)
	if err != nil {
		return err
	}
	if rootDigest != "" {
		res.TrustedRoot = rootDigest
	} else if res.TrustedRoot != "" {
		fmt.Fprintf(o.g.streams.Err, "carried trusted root %s (pin this digest in the policy on the other side)\n", res.TrustedRoot)
	}
	return o.print(res)
}

// print writes the copy's result: what was copied on stderr, the
// destination on stdout.
func (o *copyOptions) print(res *relocate.Result) error {
	return o.f.print(o.g.streams.Out, res, func(w io.Writer) error { return res.WriteText(w, o.g.streams.Err) })
}

const copyHelp = `copy resolves SRC once and copies the artifact by digest to DST's repository with everything
that vouches for it: cosign's sha256-<hex>.sig/.att/.sbom tags under the same names, and every
OCI referrer (Sigstore bundles, SBOMs), through the referrers API or, on registries without it
such as distribution 2.8, the referrers tag schema — then, recursively, the signatures and
referrers of those.

With --key or --policy the source (with --from-tarball, the tarball's own signatures) is
verified before anything is written, against exactly the tags and referrers that are then
copied, and the copy is verified at the destination under the same policy before DST's tag
(default: SRC's tag) is set: a tag never points at a copy that does not verify (exit code 9).
Signatures already at DST are kept: cosign .sig/.att tags are merged, never replaced. SRC and DST must name
the add-on that is copied, as consumers require (specs/artifact.md section 11.6): each
repository's last path element is its metadata.name (or --name, or the policy's names, for a
mirror that renames) and a semver tag its spec.version; a copy consumers of DST would refuse
fails before anything is written, even with --insecure-skip-verify.

Across an air gap: --to-tarball FILE writes SRC and all of the above as an OCI image layout
tarball (the cosign tags as tags of index.json, referrers as untagged manifests); on the
other side --from-tarball FILE[:TAG] pushes it all to DST, verifies and tags it. The tarball
is also an ordinary layout: 'addonpack push FILE:TAG REF', oras and skopeo read it.
--carry-trusted-root FILE stores a Sigstore trusted_root.json in the tarball for keyless
verification on the other side, where --trusted-root-out FILE writes it out (before the
policy is read, removed again if the copy fails) and prints its digest; it is trusted only
by a --policy whose trustedRoots pin that digest (specs/policy.md). Both work with --stack.

--images also copies every container image the add-on lists (spec.images), by digest with
all its platforms, to DST's repository followed by the image's repository path
(registry.internal/addons/hello + docker.io/hashicorp/http-echo =
registry.internal/addons/hello/hashicorp/http-echo), and stores a relocation record — an OCI
referrer of the add-on, artifactType application/vnd.addonpack.relocation.v1+json — from which
'addonpack render' of the copy rewrites each image to its new name with the digest pinned,
through kustomize's images transformer. With --to-tarball the images travel in the tarball
and the record is written by --from-tarball --images.

--stack FILE moves a whole locked stack (addonpack lock FILE first) across an air gap. With
--to-tarball OUT, every add-on of FILE's lock — by its locked digest, with its signatures,
attestations and referrers, each verified under the scope of its own repository — goes into
one tarball, with FILE and its lock. On the other side, --stack FILE --from-tarball IN DST
pushes every add-on to DST/NAME (DST is a registry and path prefix), verified in the tarball and
again at DST under the scope of its new repository before any tag is set, and then writes FILE
and its lock rewritten for DST (neither may exist): lock --check, render --stack and pull
--stack then work against DST (specs/stack.md section 4.4).

--version RANGE, with SRC naming a repository without a tag, copies the highest version the
semver range matches (a pre-release only where the range names one: specs/stack.md), resolved
once to a digest and copied as SRC:TAG@DIGEST ("resolved …" on stderr), tagged TAG at DST
unless DST names a tag.`
