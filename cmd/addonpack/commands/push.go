package commands

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/provenance"
	"github.com/addonpack/addonpack/pkg/push"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sign"
)

func newPush(g *globals) *cobra.Command {
	var (
		f         format
		sf        signFlags
		builderID string
		prefix    string
		name      string
		lf        = newLimitFlags()
	)
	cmd := &cobra.Command{
		Use:   "push DIR|LAYOUT REF | push --prefix REGISTRY/REPO DIR...",
		Short: "Build an add-on (or take a built OCI layout) and push it to a registry",
		Long:  pushHelp,
		Example: `  addonpack push ./hello localhost:5000/addons/hello:0.1.0
  addonpack build ./hello --tarball hello.tar && addonpack push hello.tar localhost:5000/addons/hello:0.1.0
  COSIGN_PASSWORD=secret addonpack push ./hello localhost:5000/addons/hello:0.1.0 --key release.key
  COSIGN_PASSWORD=secret addonpack push --prefix localhost:5000/addons ./hello ./hello-0.2.0 --key release.key`,
		Args: func(cmd *cobra.Command, args []string) error {
			if prefix != "" {
				if len(args) == 0 {
					return usageError{fmt.Errorf("push --prefix needs at least one DIR")}
				}
				return nil
			}
			return exactArgs(2)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := push.CheckSBOMFlags(sf.sbom, sf.sbomUnresolved, sf.signs()); err != nil {
				return usage(err)
			}
			if err := sf.checkKeyless(); err != nil {
				return err
			}
			if prefix != "" {
				return g.pushMany(cmd.Context(), prefix, args, &sf, builderID, lf, f)
			}
			ref, err := g.reference(args[1])
			if err != nil {
				return err
			}
			c, popts, err := g.pushOptions(cmd.Context(), &sf, builderID, lf)
			if err != nil {
				return err
			}
			popts.Name = name
			popts.Build.Progress = g.progress.Packing("Packing " + args[0])
			done := g.progress.Activity("Pushing " + args[0])
			res, err := push.Push(cmd.Context(), c, args[0], ref, popts)
			done(err)
			if err != nil {
				return err
			}
			res.WriteNotes(g.streams.Err, ref)
			return f.print(g.streams.Out, res, func(w io.Writer) error { return res.WriteText(w, g.streams.Err) })
		},
	}
	sf.add(cmd, "sign the pushed digest and attach SLSA provenance with this private key (file, env://VAR or KMS URI)")
	sf.addSBOM(cmd)
	cmd.Flags().StringVar(&name, "name", "", "the add-on REF's repository holds when its last path element is not the add-on's name (a mirror that renames); consumers then need the same --name")
	cmd.Flags().StringVar(&prefix, "prefix", "", "push every DIR to PREFIX/<name>:<version> in one process")
	cmd.Flags().StringVar(&builderID, "builder-id", "", "provenance builder id (default: from CI environment variables, else addonpack's local builder)")
	lf.add(cmd)
	addFormat(cmd, &f, true)
	return cmd
}

// pushOptions builds the client and the options push and push --prefix share:
// build settings, limits, and signing when a key or --keyless is given.
func (g *globals) pushOptions(ctx context.Context, sf *signFlags, builderID string, lf *limitFlags) (*registry.Client, push.Options, error) {
	c, err := g.client()
	if err != nil {
		return nil, push.Options{}, err
	}
	bopts, err := g.buildOptions(ctx)
	if err != nil {
		return nil, push.Options{}, err
	}
	limits, err := lf.limits()
	if err != nil {
		return nil, push.Options{}, err
	}
	bopts.Limits = &limits
	opts := push.Options{Build: bopts}
	if sf.signs() {
		if opts.Sign, err = g.pushSignOptions(ctx, sf, builderID); err != nil {
			return nil, push.Options{}, err
		}
	}
	return c, opts, nil
}

// pushSignOptions reads the key and gathers the provenance settings; push
// unlocks the key once, while it builds.
func (g *globals) pushSignOptions(ctx context.Context, sf *signFlags, builderID string) (*push.SignOptions, error) {
	opts, err := sf.options()
	if err != nil {
		return nil, err
	}
	var unlock func(context.Context) (*keys.Signer, error)
	var kl *sign.Keyless
	if sf.keyless.Enabled() {
		if kl, err = g.keyless(ctx, &sf.keyless); err != nil {
			return nil, err
		}
		opts.Format = sign.FormatBundle
	} else {
		// The key is read and its password asked for now, before anything
		// is built or uploaded; push decrypts it while it builds.
		locked, err := keys.ReadSigner(sf.key, g.passFunc(ctx), g.getenv)
		if err != nil {
			return nil, err
		}
		unlock = locked.Unlock
	}
	ci := provenance.FromEnv(g.getenv)
	var bom *push.SBOMOptions
	if sf.sbom {
		bom = &push.SBOMOptions{ToolVersion: buildVersion(), AllowUnresolved: sf.sbomUnresolved}
	}
	return &push.SignOptions{
		SBOM:           bom,
		Unlock:         unlock,
		Keyless:        kl,
		Format:         opts.Format,
		BuilderID:      provenance.BuilderID(builderID, g.getenv),
		InvocationID:   ci.InvocationID,
		BuilderVersion: buildVersion(),
	}, nil
}

const pushHelp = `push builds DIR exactly as 'addonpack build' does — or takes an OCI layout directory or
tarball written by 'addonpack build -o/--tarball' ("PATH" or "PATH:TAG") — and pushes it
to REF, uploading only the blobs the registry does not have. It prints REPO@sha256:….

REF must name what is pushed, as consumers require (specs/artifact.md section 11.6): its
repository's last path element is the add-on's metadata.name (or --name, for a mirror that
renames) and a tag that is a semantic version is spec.version ('_' for '+'); other tags
(latest, stable) claim no version. A push consumers would refuse fails first (exit 9).

Registries on loopback (localhost, 127.0.0.0/8, [::1]) are reached over plain HTTP
unless they speak TLS; any other registry needs HTTPS or --plain-http.

With --key, the pushed digest is then signed and a SLSA v1 provenance attestation is
attached, in the same process (see 'addonpack sign' and specs/provenance.md), as Sigstore
bundle referrers unless --signature-format says classic or both. The builder id
is --builder-id, else derived from CI (GitHub Actions' workflow ref, GitLab CI), else
addonpack's local builder id. With --keyless instead of --key, both are signed keyless and
stored as Sigstore bundle referrers (see 'addonpack sign --help'); the Fulcio certificate is
obtained before anything is written, so a refused identity token leaves nothing behind.

With --prefix, every DIR is pushed to PREFIX/<name>:<version> from its addon.yaml, in one
process: one key unlock, one registry client, a few add-ons in flight at once. One line
per add-on; a failure does not stop the others, and the first one sets the exit code.`
