package provenance

import (
	"encoding/json"
	"fmt"
	"time"

	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/opencontainers/go-digest"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	slsa "github.com/in-toto/attestation/go/predicates/provenance/v1"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// URIs defined by specs/provenance.md.
const (
	// PredicateType is SLSA Provenance v1.
	PredicateType = "https://slsa.dev/provenance/v1"
	// StatementType is in-toto Statement v1.
	StatementType = intoto.StatementTypeUri
	// BuildType is addonpack's build type: an add-on source directory (or a
	// prebuilt OCI layout) packed and pushed by `addonpack push`.
	BuildType = "https://addonpack.dev/provenance/buildtypes/addon/v1"
	// LocalBuilderID is the builder id when neither --builder-id nor a known
	// CI environment names one.
	LocalBuilderID = "https://addonpack.dev/provenance/builders/local"
)

// ErrInvalid reports facts that cannot make a statement.
var ErrInvalid = errdef.New(errdef.ErrInvalid, "invalid provenance facts")

// Source describes the git work tree a build came from.
type Source struct {
	// URL is the repository URL (remote.origin.url, credentials stripped),
	// recorded normalised (SourceURI).
	URL string
	// Path is the built directory relative to the repository's root ("."
	// for the root), recorded as externalParameters.path; "" when unknown.
	Path string
	// Commit is the full commit id of HEAD.
	Commit string
	// Dirty marks uncommitted changes under the source directory.
	Dirty bool
}

// Facts are what a build knows about itself.
type Facts struct {
	// Subject is the artifact the statement is about.
	SubjectName   string // "registry/repository" (no tag, no digest)
	SubjectDigest digest.Digest
	// Addon name and version, and the output-changing flags (e.g. "tag",
	// "sourceDateEpoch", "revision", "source": "directory"|"layout").
	AddonName, AddonVersion string
	Parameters              map[string]string
	// Source is the git source, nil when the source is not in a work tree.
	Source *Source
	// BuilderID identifies the builder (see BuilderID).
	BuilderID string
	// InvocationID identifies this run, e.g. a CI run URL; optional.
	InvocationID string
	// BuilderVersion is the addonpack version.
	BuilderVersion string
	// StartedOn and FinishedOn bound the build; zero values are left out.
	StartedOn, FinishedOn time.Time
}

// New returns the in-toto Statement v1 with a SLSA Provenance v1 predicate
// for f.
func New(f Facts) (*intoto.Statement, error) {
	if err := f.SubjectDigest.Validate(); err != nil {
		return nil, fmt.Errorf("%w: subject digest %q: %w", ErrInvalid, f.SubjectDigest, err)
	}
	if f.BuilderID == "" {
		f.BuilderID = LocalBuilderID
	}
	ext := map[string]any{"name": f.AddonName, "version": f.AddonVersion}
	for k, v := range f.Parameters {
		ext[k] = v
	}
	if s := f.Source; s != nil && s.Path != "" {
		ext["path"] = s.Path
	}
	extStruct, err := structpb.NewStruct(ext)
	if err != nil {
		return nil, fmt.Errorf("%w: external parameters: %w", ErrInvalid, err)
	}
	var deps []*intoto.ResourceDescriptor
	if s := f.Source; s != nil && s.Commit != "" {
		rd := &intoto.ResourceDescriptor{
			Uri:    SourceURI(s.URL),
			Digest: map[string]string{"gitCommit": s.Commit},
		}
		if s.Dirty {
			rd.Annotations, _ = structpb.NewStruct(map[string]any{"dirty": true})
		}
		deps = append(deps, rd)
	}
	meta := &slsa.BuildMetadata{InvocationId: f.InvocationID}
	if !f.StartedOn.IsZero() {
		meta.StartedOn = timestamppb.New(f.StartedOn.UTC().Truncate(time.Second))
	}
	if !f.FinishedOn.IsZero() {
		meta.FinishedOn = timestamppb.New(f.FinishedOn.UTC().Truncate(time.Second))
	}
	builder := &slsa.Builder{Id: f.BuilderID}
	if f.BuilderVersion != "" {
		builder.Version = map[string]string{"addonpack": f.BuilderVersion}
	}
	pred := &slsa.Provenance{
		BuildDefinition: &slsa.BuildDefinition{
			BuildType:            BuildType,
			ExternalParameters:   extStruct,
			ResolvedDependencies: deps,
		},
		RunDetails: &slsa.RunDetails{Builder: builder, Metadata: meta},
	}
	predStruct, err := toStruct(pred)
	if err != nil {
		return nil, err
	}
	st := &intoto.Statement{
		Type: StatementType,
		Subject: []*intoto.ResourceDescriptor{{
			Name:   f.SubjectName,
			Digest: map[string]string{f.SubjectDigest.Algorithm().String(): f.SubjectDigest.Encoded()},
		}},
		PredicateType: PredicateType,
		Predicate:     predStruct,
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return st, nil
}

// Marshal encodes a statement as JSON (protojson field names, as the in-toto
// spec and cosign expect).
func Marshal(st *intoto.Statement) ([]byte, error) {
	return protojson.Marshal(st)
}

func toStruct(pred *slsa.Provenance) (*structpb.Struct, error) {
	raw, err := protojson.Marshal(pred)
	if err != nil {
		return nil, fmt.Errorf("%w: predicate: %w", ErrInvalid, err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return structpb.NewStruct(m)
}
