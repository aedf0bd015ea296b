package spec

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/specs"
)

// addonSchemas compiles each embedded addon.yaml schema once, by source
// apiVersion, when a document of that version is first validated: an
// addon.yaml of one version never pays for the other's schema (compiling
// both was most of what parsing a v1alpha1 config blob cost a pull). The map
// is never written and the compiled schemas are immutable, so sharing them
// is not mutable package state.
var addonSchemas = map[string]func() (*jsonschema.Schema, error){
	APIVersion:         compileOnce(specs.AddonSchemaPath),
	APIVersionV1Alpha2: compileOnce(specs.AddonV1Alpha2SchemaPath),
}

func compileOnce(file string) func() (*jsonschema.Schema, error) {
	return sync.OnceValues(func() (*jsonschema.Schema, error) { return schema.CompileEmbedded(specs.Schemas, file) })
}

// defMessages replaces pattern errors on the schema's named definitions by
// sentences a person can act on.
var defMessages = map[string]string{
	"dnsLabel":  "must be a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters",
	"semver":    "must be a strict semantic version MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD], e.g. 1.2.3",
	"url":       "must be an http:// or https:// URL",
	"localPath": "must be a relative slash-separated path inside the package",
	"fieldPath": "must be a dotted path of property names under spec, like greeting.text",
}

// validateAgainstSchema validates doc against the schema of the source
// version apiVersion (APIVersion or APIVersionV1Alpha2).
func validateAgainstSchema(doc any, file, apiVersion string) Errors {
	compile, ok := addonSchemas[apiVersion]
	if !ok {
		return Errors{{File: file, Field: "apiVersion", Msg: "internal: no schema for " + strconv.Quote(apiVersion)}}
	}
	sch, err := compile()
	if err != nil {
		return Errors{{File: file, Msg: "internal: addon schema does not compile: " + err.Error()}}
	}
	verr := sch.Validate(doc)
	if verr == nil {
		return nil
	}
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok {
		return Errors{{File: file, Msg: verr.Error()}}
	}
	p := message.NewPrinter(language.English)
	var errs Errors
	seen := map[string]bool{}
	for _, leaf := range leaves(ve) {
		fe := &FieldError{File: file, Field: FieldPath(leaf.InstanceLocation), Msg: leafMessage(leaf, p)}
		if key := fe.Error(); !seen[key] {
			seen[key] = true
			errs = append(errs, fe)
		}
	}
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Field < errs[j].Field })
	return errs
}

func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

func leafMessage(e *jsonschema.ValidationError, p *message.Printer) string {
	if _, ok := e.ErrorKind.(*kind.Pattern); ok {
		for def, msg := range defMessages {
			if strings.Contains(e.SchemaURL, "/$defs/"+def) {
				return msg
			}
		}
	}
	if c, ok := e.ErrorKind.(*kind.Const); ok {
		return fmt.Sprintf("must be %v", c.Want)
	}
	return e.ErrorKind.LocalizedString(p)
}

// FieldPath renders a JSON instance location as a dotted path with indexes:
// ["spec","maintainers","0","name"] → "spec.maintainers[0].name".
func FieldPath(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}
