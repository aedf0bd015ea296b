package sign

import (
	"encoding/json"
	"fmt"

	"github.com/opencontainers/go-digest"
)

// statement is the part of an in-toto statement (v0.1 or v1) that signing
// and verification look at.
type statement struct {
	Type    string `json:"_type"`
	Subject []struct {
		Name   string            `json:"name"`
		Digest map[string]string `json:"digest"`
	} `json:"subject"`
	PredicateType string          `json:"predicateType"`
	Predicate     json.RawMessage `json:"predicate"`
}

func parseStatement(b []byte) (*statement, error) {
	var st statement
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("in-toto statement: %w", err)
	}
	if st.PredicateType == "" {
		return nil, fmt.Errorf("in-toto statement: no predicateType")
	}
	return &st, nil
}

// names reports an error unless one of the subjects carries d.
func (st *statement) names(d digest.Digest) error {
	for _, s := range st.Subject {
		if s.Digest[d.Algorithm().String()] == d.Encoded() {
			return nil
		}
	}
	return fmt.Errorf("in-toto statement: no subject has digest %s", d)
}

// Statement wraps a JSON predicate in an in-toto Statement v1 about one
// subject: name (a repository) at digest d.
func Statement(name string, d digest.Digest, predicateType string, predicate json.RawMessage) ([]byte, error) {
	if !json.Valid(predicate) {
		return nil, fmt.Errorf("%w: predicate of type %s is not valid JSON", ErrSign, predicateType)
	}
	return json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"name": name, "digest": map[string]string{d.Algorithm().String(): d.Encoded()}}},
		"predicateType": predicateType,
		"predicate":     predicate,
	})
}
