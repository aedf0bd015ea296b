package specs_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/pkg/archive"
	"github.com/addonpack/addonpack/pkg/schema"
	"github.com/addonpack/addonpack/pkg/spec"
)

// The documents and files these tests keep in sync, relative to specs/.
const (
	artifactDoc   = "artifact.md"
	mediaTypesGo  = "../pkg/spec/mediatypes.go"
	goldenDir     = "examples/hello/"
	goldenDigest  = goldenDir + "digest"
	goldenConfig  = goldenDir + "config.json"
	goldenManifst = goldenDir + "manifest.json"
	// The source directory the golden artifact is built from.
	helloSource = "../examples/hello/"
)

// A marker is an HTML comment on its own line, followed by a fenced block:
//
//	<!-- golden: examples/hello/manifest.json -->       block equals the file, after trimming white space
//	<!-- golden-json: examples/hello/manifest.json -->  block, compacted as JSON, equals the file
//
// Any other golden-… marker is an error, so that a stale marker cannot go
// unchecked.
var markerRE = regexp.MustCompile(`^<!--\s*(golden[-a-z]*):\s*(\S+)\s*-->\s*$`)

type block struct {
	kind, target string
	line         int // of the marker
	body         []byte
}

// markedBlocks returns every marked fenced block of the document.
func markedBlocks(t *testing.T, doc string) []block {
	t.Helper()
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []block
	for i := 0; i < len(lines); i++ {
		m := markerRE.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if m == nil {
			continue
		}
		b := block{kind: m[1], target: m[2], line: i + 1}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j == len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
			t.Fatalf("%s:%d: marker %q is not followed by a fenced block", doc, b.line, lines[i])
		}
		fence := strings.TrimSpace(lines[j])
		fence = fence[:len(fence)-len(strings.TrimLeft(fence, "`"))]
		var body []string
		closed := false
		for j++; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == fence {
				closed = true
				break
			}
			body = append(body, lines[j])
		}
		if !closed {
			t.Fatalf("%s:%d: fenced block after the marker is not closed", doc, b.line)
		}
		b.body = []byte(strings.Join(body, "\n"))
		out = append(out, b)
		i = j
	}
	return out
}

func readTrimmed(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (regenerate with: go test ./pkg/build -run TestGolden -update)", err)
	}
	return bytes.TrimSpace(data)
}

// TestGoldenBlocks checks the worked example of artifact.md against the golden
// files that TestGolden in pkg/build pins to the builder's output.
func TestGoldenBlocks(t *testing.T) {
	blocks := markedBlocks(t, artifactDoc)
	exact := map[string]bool{}
	for _, b := range blocks {
		where := fmt.Sprintf("%s:%d (%s %s)", artifactDoc, b.line, b.kind, b.target)
		switch b.kind {
		case "golden":
			exact[b.target] = true
			if got, want := bytes.TrimSpace(b.body), readTrimmed(t, b.target); !bytes.Equal(got, want) {
				t.Errorf("%s: block differs from %s:\n%s\nwant\n%s", where, b.target, got, want)
			}
		case "golden-json":
			var got bytes.Buffer
			if err := json.Compact(&got, b.body); err != nil {
				t.Errorf("%s: block is not JSON: %v", where, err)
				continue
			}
			if want := readTrimmed(t, b.target); !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s: block, compacted, differs from %s:\n%s\nwant\n%s", where, b.target, got.Bytes(), want)
			}
		default:
			t.Errorf("%s: unknown marker kind %q (want golden or golden-json)", where, b.kind)
		}
	}
	for _, f := range []string{goldenManifst, goldenConfig, goldenDigest} {
		if !exact[f] {
			t.Errorf("%s quotes no block marked <!-- golden: %s -->", artifactDoc, f)
		}
	}

	// The golden files agree with each other and with artifact.md: one
	// layer, the content layer, and a config blob that parses as a ConfigBlob
	// whose schema is the canonical form of the example's schema file.
	manifest := readTrimmed(t, goldenManifst)
	sum := sha256.Sum256(manifest)
	if got, want := "sha256:"+hex.EncodeToString(sum[:]), string(readTrimmed(t, goldenDigest)); got != want {
		t.Errorf("%s hashes to %s, %s says %s", goldenManifst, got, goldenDigest, want)
	}
	a, err := spec.ParseManifest(manifest, goldenManifst)
	if err != nil {
		t.Fatalf("golden manifest does not parse: %v", err)
	}
	if n := len(a.Manifest.Layers); n != 1 {
		t.Errorf("golden manifest has %d layers, artifact.md section 5 says exactly one", n)
	}
	if got := a.Content; got.MediaType != spec.ContentMediaType || got.Annotations[spec.AnnotationTitle] != spec.ContentTitle {
		t.Errorf("golden content layer is %s titled %q, want %s titled %q", got.MediaType, got.Annotations[spec.AnnotationTitle], spec.ContentMediaType, spec.ContentTitle)
	}
	config := readTrimmed(t, goldenConfig)
	sum = sha256.Sum256(config)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != a.Config.Digest.String() || int64(len(config)) != a.Config.Size {
		t.Errorf("%s is %s (%d bytes), the manifest's config is %s (%d bytes)", goldenConfig, got, len(config), a.Config.Digest, a.Config.Size)
	}
	blob, err := spec.ParseConfigBlob(config, goldenConfig)
	if err != nil {
		t.Fatalf("golden config blob does not parse: %v", err)
	}
	c := blob.Addon.Spec.Config
	if c == nil || blob.Schema == nil {
		t.Fatalf("golden config blob: want addon.spec.config and schema, got config %v and schema %q", c, blob.Schema)
	}
	if got, want := a.Manifest.Annotations[spec.AnnotationConfigType], c.APIVersion+"/"+c.Kind; got != want {
		t.Errorf("golden manifest: %s is %q, the config blob says %q", spec.AnnotationConfigType, got, want)
	}
	src, err := os.ReadFile(helloSource + c.Schema)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.Compile(src, c.Schema, schema.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	// The blob's copy has <, > and & escaped (artifact.md section 4):
	// compare both with those escaped.
	var inBlob, want bytes.Buffer
	json.HTMLEscape(&inBlob, blob.Schema)
	json.HTMLEscape(&want, sch.JSON())
	if !bytes.Equal(inBlob.Bytes(), want.Bytes()) {
		t.Errorf("golden config blob: schema is\n%s\nthe canonical JSON of %s%s is\n%s", blob.Schema, helloSource, c.Schema, sch.JSON())
	}
}

// mediaTypeConstants maps every constant of pkg/spec/mediatypes.go to its
// value. TestMediaTypesDocumented fails when the file declares a constant that
// is missing here, so new media types and annotation keys cannot go
// undocumented.
var mediaTypeConstants = map[string]string{
	"APIVersion":            spec.APIVersion,
	"APIVersionV1Alpha2":    spec.APIVersionV1Alpha2,
	"Kind":                  spec.Kind,
	"FileName":              spec.FileName,
	"ArtifactType":          spec.ArtifactType,
	"ConfigMediaType":       spec.ConfigMediaType,
	"ConfigMediaTypeV2":     spec.ConfigMediaTypeV2,
	"ContentMediaType":      spec.ContentMediaType,
	"ManifestMediaType":     spec.ManifestMediaType,
	"ContentTitle":          spec.ContentTitle,
	"AnnotationTitle":       spec.AnnotationTitle,
	"AnnotationVersion":     spec.AnnotationVersion,
	"AnnotationDescription": spec.AnnotationDescription,
	"AnnotationSource":      spec.AnnotationSource,
	"AnnotationRevision":    spec.AnnotationRevision,
	"AnnotationCreated":     spec.AnnotationCreated,
	"AnnotationLicenses":    spec.AnnotationLicenses,
	"AnnotationURL":         spec.AnnotationURL,
	"AnnotationConfigType":  spec.AnnotationConfigType,
}

func TestMediaTypesDocumented(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, mediaTypesGo, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(artifactDoc)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				names = append(names, n.Name)
			}
		}
	}
	if len(names) == 0 {
		t.Fatalf("no constants found in %s", mediaTypesGo)
	}
	for _, name := range names {
		value, ok := mediaTypeConstants[name]
		if !ok {
			t.Errorf("%s declares %s: add it to mediaTypeConstants in specs/specs_test.go and document it in %s", mediaTypesGo, name, artifactDoc)
			continue
		}
		if !bytes.Contains(doc, []byte("`"+value+"`")) && !bytes.Contains(doc, []byte(`"`+value+`"`)) {
			t.Errorf("spec.%s = %q does not appear (quoted) in %s", name, value, artifactDoc)
		}
	}
}

// TestLimitsTable checks that the limits table of artifact.md has a row
// "| `Field` | <default> ..." for every field of archive.Limits, with the
// default of archive.DefaultLimits().
func TestLimitsTable(t *testing.T) {
	doc, err := os.ReadFile(artifactDoc)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows[strings.Trim(cells[0], "`")] = cells
	}
	limits := reflect.ValueOf(archive.DefaultLimits())
	for i := 0; i < limits.NumField(); i++ {
		name := limits.Type().Field(i).Name
		want := fmt.Sprint(limits.Field(i).Interface())
		cells, ok := rows[name]
		if !ok || len(cells) < 2 {
			t.Errorf("%s has no limits table row for %s (default %s)", artifactDoc, name, want)
			continue
		}
		got, _, _ := strings.Cut(cells[1], " ")
		if _, err := strconv.ParseInt(got, 10, 64); err != nil || got != want {
			t.Errorf("%s: limits table says %s = %q, archive.DefaultLimits() says %s", artifactDoc, name, cells[1], want)
		}
	}
}

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	sectRefRE = regexp.MustCompile(`\[([A-Za-z0-9_-]+\.md)\]\(([A-Za-z0-9_-]+\.md)\)\s+sections?\s+(\d+(?:\.\d+)*)`)
	headingRE = regexp.MustCompile(`(?m)^#{2,4}\s+(\d+(?:\.\d+)*)\.?\s`)
	codeRE    = regexp.MustCompile("`[^`\n]*`")
)

// stripCode blanks fenced blocks and code spans, which hold examples, not links.
func stripCode(data []byte) []byte {
	lines := strings.Split(string(data), "\n")
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced {
			lines[i] = ""
			continue
		}
		lines[i] = codeRE.ReplaceAllString(l, "")
	}
	return []byte(strings.Join(lines, "\n"))
}

// TestLinks checks that every relative link of the specifications names an
// existing file, and that every "[doc.md](doc.md) section N" names a
// numbered heading of that document.
func TestLinks(t *testing.T) {
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]map[string]bool{}
	for _, d := range docs {
		data, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		sections[d] = map[string]bool{}
		for _, m := range headingRE.FindAllStringSubmatch(string(data), -1) {
			sections[d][m[1]] = true
		}
	}
	for _, d := range docs {
		data, _ := os.ReadFile(d)
		data = stripCode(data)
		for _, m := range linkRE.FindAllStringSubmatch(string(data), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: link %q: %v", d, m[1], err)
			}
		}
		for _, m := range sectRefRE.FindAllStringSubmatch(string(data), -1) {
			if m[1] != m[2] {
				continue
			}
			secs, ok := sections[m[2]]
			if !ok {
				t.Errorf("%s: %q refers to a document that is not in specs/", d, m[0])
				continue
			}
			if !secs[m[3]] {
				t.Errorf("%s: %q: %s has no section %s", d, strings.Join(strings.Fields(m[0]), " "), m[2], m[3])
			}
		}
	}
}
