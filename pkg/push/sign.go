package push

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/addonpack/addonpack/pkg/keys"
	"github.com/addonpack/addonpack/pkg/provenance"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/sbom"
	"github.com/addonpack/addonpack/pkg/sign"
	"github.com/addonpack/addonpack/pkg/spec"
)

// SignOptions make Push sign the pushed digest and attach SLSA provenance.
type SignOptions struct {
	// Signer is the unlocked key (keys.LoadSigner). With the classic format
	// it signs the signature and the attestation concurrently, so a custom
	// backend (keys.NewSigner) must be safe for concurrent use.
	Signer *keys.Signer
	// Unlock, used when Signer is nil, unlocks the key while Push builds
	// and uploads (a cosign key file's scrypt takes ~0.14 s of one core;
	// keys.ReadSigner reads the key and its password before, so that those
	// fail with nothing sent). Push writes the root manifest and the tag
	// only once it has returned, so a wrong password leaves no manifest and
	// no tag; blobs already uploaded stay unreferenced.
	Unlock func(context.Context) (*keys.Signer, error)
	// Keyless, instead of a key, signs with an ephemeral key and a Fulcio
	// certificate (sign.NewKeyless); Push gets the certificate while it
	// builds, so a refused identity token leaves nothing behind. Format
	// must then be "" or sign.FormatBundle.
	Keyless *sign.Keyless
	// Format is the storage scheme; "" is sign.FormatClassic (the CLI
	// passes sign.FormatBundle, its default).
	Format sign.Format
	// Annotations are signed into the signature payload.
	Annotations map[string]string
	// BuilderID, InvocationID and BuilderVersion go into the provenance
	// (see provenance.BuilderID for the CI-derived default).
	BuilderID, InvocationID, BuilderVersion string
	// Now is the clock for finishedOn; nil means time.Now.
	Now func() time.Time
	// SBOM, when set, attaches an SBOM attestation too (CycloneDX,
	// sbom.PredicateType), after the provenance.
	SBOM *SBOMOptions
}

func (s *SignOptions) check() error {
	switch {
	case s.Keyless != nil && (s.Signer != nil || s.Unlock != nil):
		return fmt.Errorf("%w: push: a key and keyless signing at once", sign.ErrSign)
	case s.Keyless != nil && s.Format != "" && s.Format != sign.FormatBundle:
		return fmt.Errorf("%w: push: keyless signatures are stored as bundles, not in the %q format", sign.ErrSign, s.Format)
	case s.Signer == nil && s.Unlock == nil && s.Keyless == nil:
		return fmt.Errorf("%w: push: no signing key", sign.ErrSign)
	}
	_, err := sign.ParseFormat(string(s.Format))
	return err
}

func signAndAttest(ctx context.Context, c *registry.Client, src string, ref registry.Reference, o *opened, opts Options, started time.Time) ([]sign.Result, error) {
	so := opts.Sign
	t := sign.Target{Client: c, Ref: ref}
	sopts := sign.Options{Format: so.Format, Annotations: so.Annotations, Keyless: so.Keyless}
	facts, err := factsFor(ctx, src, ref, o, opts)
	if err != nil {
		return nil, err
	}
	facts.StartedOn = started
	now := time.Now
	if so.Now != nil {
		now = so.Now
	}
	facts.FinishedOn = now()
	st, err := provenance.New(facts)
	if err != nil {
		return nil, err
	}
	raw, err := provenance.Marshal(st)
	if err != nil {
		return nil, err
	}
	// The SBOM (its images resolved before the push) is made while signing runs.
	var (
		sbomDoc  []byte
		sbomErr  error
		sbomDone = make(chan struct{})
	)
	if so.SBOM != nil {
		go func() { sbomDoc, sbomErr = makeSBOM(ctx, ref, o, o.images, so.SBOM); close(sbomDone) }()
	} else {
		close(sbomDone)
	}
	attest := func() (*sign.Result, error) { return sign.Attest(ctx, t, o.root, so.Signer, raw, sopts) }

	// Classic signatures and attestations live under two tags of their
	// own: store both at once. Bundles (FormatBundle, FormatBoth) may share
	// the referrers index tag (registries without the referrers API), which
	// is read, changed and written back, and they share the empty config
	// blob: one at a time. (Tried: stored at once through one oras-go
	// repository, which merges the index changes; on distribution 2.8 a
	// bundle's manifest was then refused now and then as referring to
	// unknown content — likely the other's upload of the same config
	// rewriting the repository's link to it — and oras-go's recovery,
	// which re-copies the subject, failed. Not kept.)
	var att *sign.Result
	var attErr error
	format, _ := sign.ParseFormat(string(so.Format)) // checked by SignOptions.check
	if so.Keyless != nil {
		format = sign.FormatBundle
	}
	done := make(chan struct{})
	if format == sign.FormatClassic {
		go func() { att, attErr = attest(); close(done) }()
	} else {
		close(done)
	}
	sig, err := sign.Sign(ctx, t, o.root, so.Signer, sopts)
	<-done
	if format != sign.FormatClassic && err == nil {
		att, attErr = attest()
	}
	// The SBOM goes after the provenance: a classic attestation is a layer
	// of the one .att image, read, changed and written back.
	<-sbomDone
	var bom *sign.Result
	if so.SBOM != nil && err == nil && attErr == nil {
		if sbomErr == nil {
			bom, sbomErr = attestSBOM(ctx, t, ref, o, so, sbomDoc, sopts)
		}
	}
	// Report what was stored, whichever part failed.
	var out []sign.Result
	for _, r := range []*sign.Result{sig, att, bom} {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out, errors.Join(err, attErr, sbomErr)
}

// attestSBOM signs doc as an in-toto statement about o's root and stores it.
func attestSBOM(ctx context.Context, t sign.Target, ref registry.Reference, o *opened, so *SignOptions, doc []byte, sopts sign.Options) (*sign.Result, error) {
	st, err := sign.Statement(ref.Repo(), o.root.Digest, sbom.PredicateType, doc)
	if err != nil {
		return nil, err
	}
	return sign.Attest(ctx, t, o.root, so.Signer, st, sopts)
}

// factsFor gathers what the provenance records about this push.
func factsFor(ctx context.Context, src string, ref registry.Reference, o *opened, opts Options) (provenance.Facts, error) {
	so := opts.Sign
	f := provenance.Facts{
		SubjectName: ref.Repo(), SubjectDigest: o.root.Digest,
		BuilderID: so.BuilderID, InvocationID: so.InvocationID, BuilderVersion: so.BuilderVersion,
		Parameters: map[string]string{"source": "directory"},
	}
	if ref.Tag != "" {
		f.Parameters["tag"] = ref.Tag
	}
	if opts.Build.Created != nil {
		f.Parameters["sourceDateEpoch"] = strconv.FormatInt(opts.Build.Created.Unix(), 10)
	}
	if opts.Build.Revision != "" {
		f.Parameters["revision"] = opts.Build.Revision
	}
	// The config and layers are this build's outputs — the subject — and
	// not recorded as resolved dependencies.
	if o.build != nil {
		f.AddonName, f.AddonVersion = o.build.Addon.Metadata.Name, o.build.Addon.Spec.Version
		// The git facts the build recorded: asking git again costs a few
		// processes per add-on and could see another state.
		if info := o.build.VCS; info != nil && info.Commit != "" {
			f.Source = &provenance.Source{URL: info.RemoteURL, Commit: info.Commit, Dirty: info.Dirty, Path: info.Path}
		}
	} else {
		f.Parameters["source"] = "layout"
		m, err := manifestOf(ctx, o)
		if err != nil {
			return f, err
		}
		f.AddonName, f.AddonVersion = m.Annotations[spec.AnnotationTitle], m.Annotations[spec.AnnotationVersion]
		if rev := m.Annotations[spec.AnnotationRevision]; rev != "" {
			f.Source = &provenance.Source{URL: m.Annotations[spec.AnnotationSource], Commit: rev}
		}
	}
	return f, nil
}

func manifestOf(ctx context.Context, o *opened) (*ocispec.Manifest, error) {
	raw, err := content.FetchAll(ctx, o.store, o.root)
	if err != nil {
		return nil, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errors.Join(fmt.Errorf("manifest %s", o.root.Digest), err)
	}
	return &m, nil
}
