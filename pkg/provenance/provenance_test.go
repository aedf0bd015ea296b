package provenance_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/addonpack/addonpack/pkg/provenance"
)

func TestStatement(t *testing.T) {
	d := digest.FromString("manifest")
	st, err := provenance.New(provenance.Facts{
		SubjectName: "r.io/addons/hello", SubjectDigest: d, AddonName: "hello", AddonVersion: "0.1.0",
		Parameters: map[string]string{"tag": "0.1.0"},
		Source:     &provenance.Source{URL: "git@github.com:example/hello.git", Commit: "abc123", Dirty: true, Path: "addons/hello"},
		StartedOn:  time.Unix(100, 0), FinishedOn: time.Unix(200, 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := provenance.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Type          string `json:"_type"`
		PredicateType string
		Subject       []struct{ Digest map[string]string }
		Predicate     struct {
			BuildDefinition struct {
				BuildType            string
				ExternalParameters   map[string]string
				ResolvedDependencies []struct {
					URI         string
					Name        string
					Digest      map[string]string
					Annotations map[string]any
				}
			}
			RunDetails struct {
				Builder  struct{ ID string }
				Metadata struct{ StartedOn, FinishedOn string }
			}
		}
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	bd := got.Predicate.BuildDefinition
	deps := bd.ResolvedDependencies
	switch {
	case got.Type != "https://in-toto.io/Statement/v1", got.PredicateType != provenance.PredicateType,
		got.Subject[0].Digest["sha256"] != d.Encoded(), bd.BuildType != provenance.BuildType,
		bd.ExternalParameters["name"] != "hello", bd.ExternalParameters["tag"] != "0.1.0",
		bd.ExternalParameters["path"] != "addons/hello",
		// The build's own outputs (config, layers) are the subject, not inputs.
		len(deps) != 1, deps[0].URI != "git+ssh://github.com/example/hello", deps[0].Digest["gitCommit"] != "abc123",
		deps[0].Annotations["dirty"] != true,
		got.Predicate.RunDetails.Builder.ID != provenance.LocalBuilderID,
		got.Predicate.RunDetails.Metadata.StartedOn != "1970-01-01T00:01:40Z":
		t.Fatalf("statement: %s", raw)
	}
}

func TestBuilderIDFromCI(t *testing.T) {
	gh := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_WORKFLOW_REF": "o/r/.github/workflows/rel.yml@refs/tags/v1", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "7"}
	ci := provenance.FromEnv(func(k string) string { return gh[k] })
	if ci.BuilderID != "https://github.com/o/r/.github/workflows/rel.yml@refs/tags/v1" || ci.InvocationID != "https://github.com/o/r/actions/runs/7/attempts/1" {
		t.Fatalf("%+v", ci)
	}
	if id := provenance.BuilderID("explicit", func(k string) string { return gh[k] }); id != "explicit" {
		t.Fatal(id)
	}
	if id := provenance.BuilderID("", func(string) string { return "" }); id != provenance.LocalBuilderID {
		t.Fatal(id)
	}
}
