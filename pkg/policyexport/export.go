package policyexport

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/verify"
)

// ErrInexpressible: the target cannot enforce part of the policy. The error
// lists every item that would be lost; Options.Lossy exports anyway. It is
// a command-line class error (exit 2): choose another target or --lossy.
var ErrInexpressible = errdef.New(errdef.ErrInvalidArgument, "the policy cannot be expressed for this target")

// Targets are the consumers Export writes for.
func Targets() []string { return []string{"flux", "argocd", "kyverno", "policy-controller"} }

// Options say what to export for whom.
type Options struct {
	// For is one of Targets().
	For string
	// Ref, when set, selects the scope (flux) and gives the OCIRepository
	// its url and ref.
	Ref *registry.Reference
	// Lossy exports what the target can express and lists the rest as
	// comments ("# addonpack: not enforced by …") instead of refusing.
	Lossy bool
	// Name is the base name of the objects written ("addonpack" by default).
	Name string
	// Namespace of the namespaced objects (flux-system or argocd by default).
	Namespace string
	// Policy is the policy file as read (its bytes) and File its path:
	// argocd carries it, self-contained, to the plugin.
	Policy []byte
	File   string
	// Image is the addonpack container image the Argo CD plugin sidecar runs.
	Image string
	// Plugin is the Argo CD plugin's name ("addonpack" by default).
	Plugin string
	// PlainHTTP marks Ref's registry as reached without TLS (--plain-http):
	// Flux is told insecure: true, as it is for a loopback registry, which
	// addonpack reaches over plain HTTP too.
	PlainHTTP bool
}

// File is one output file.
type File struct {
	Name string
	Data []byte
}

// Result is what Export wrote and what it could not express.
type Result struct {
	Files []File
	// Lost lists what the target does not enforce (empty unless Lossy).
	Lost []string
	// Notes are fixed lines the target's output always opens with: what it
	// never checks of addonpack's verification, whatever the policy.
	Notes []string
	// Header is the notes, then one "# addonpack: not enforced by TARGET:
	// ITEM" comment line per lost item: at the top of the stream and of
	// every file.
	Header []byte
}

// Stream is the result as one YAML stream (for stdout): the Header's
// comments at the top, then each file.
func (r *Result) Stream() []byte {
	var b bytes.Buffer
	b.Write(r.Header)
	for i, f := range r.Files {
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(f.Data)
	}
	return b.Bytes()
}

// Export writes p (read from opts.Policy) for opts.For. When the target
// cannot enforce part of p, it fails with ErrInexpressible listing every
// such item, unless opts.Lossy.
func Export(ctx context.Context, p *verify.Policy, opts Options) (*Result, error) {
	if err := CheckTarget(opts.For); err != nil {
		return nil, err
	}
	if opts.Ref != nil && opts.For != "flux" {
		return nil, fmt.Errorf("--ref is for --for flux (its scope and OCIRepository): %w", errdef.ErrInvalidArgument)
	}
	if opts.Name == "" {
		opts.Name = "addonpack"
	}
	var (
		res *Result
		err error
	)
	switch opts.For {
	case "flux":
		res, err = flux(p, opts)
	case "argocd":
		res, err = argoCD(p, opts)
	case "kyverno":
		res, err = kyverno(p, opts)
	default:
		res, err = policyController(p, opts)
	}
	if err != nil {
		return nil, err
	}
	if len(res.Lost) > 0 && !opts.Lossy {
		return nil, fmt.Errorf("--for %s: %w (--lossy exports it anyway); not enforced would be:\n  - %s",
			opts.For, ErrInexpressible, strings.Join(res.Lost, "\n  - "))
	}
	var h bytes.Buffer
	for _, n := range res.Notes {
		fmt.Fprintf(&h, "# addonpack: %s\n", n)
	}
	h.Write(lostHeader(res.Lost, opts.For))
	res.Header = h.Bytes()
	return res, nil
}

// CheckTarget refuses a target Export does not know.
func CheckTarget(target string) error {
	if !slices.Contains(Targets(), target) {
		return fmt.Errorf("--for %q: want one of %s: %w", target, strings.Join(Targets(), ", "), errdef.ErrInvalidArgument)
	}
	return nil
}

var targetNames = map[string]string{"flux": "Flux", "argocd": "Argo CD", "kyverno": "Kyverno", "policy-controller": "policy-controller"}

func lostHeader(lost []string, target string) []byte {
	if len(lost) == 0 {
		return nil
	}
	var b bytes.Buffer
	for _, l := range lost {
		fmt.Fprintf(&b, "# addonpack: not enforced by %s: %s\n", targetNames[target], strings.ReplaceAll(l, "\n", " "))
	}
	return b.Bytes()
}

func labels() map[string]any {
	return map[string]any{"app.kubernetes.io/managed-by": "addonpack"}
}

// distinctKeys is ks without repeats of a key (by its verifier's id, the
// first name kept), with what no target enforces of each (keyLost).
func distinctKeys(where string, ks []verify.Key) ([]verify.Key, []string) {
	var out []verify.Key
	var lost []string
	seen := map[string]bool{}
	for _, k := range ks {
		lost = append(lost, keyLost(where, k)...)
		if !seen[k.Verifier.ID] {
			seen[k.Verifier.ID] = true
			out = append(out, k)
		}
	}
	return out, lost
}

// keyLost lists what no target here enforces of a key: its window.
func keyLost(where string, k verify.Key) []string {
	var lost []string
	if k.NotBefore != nil || k.NotAfter != nil {
		lost = append(lost, fmt.Sprintf("%s: key %q validity window (notBefore/notAfter)", where, k.Name))
	}
	return lost
}

// identityLost lists the Fulcio extensions of id no target here matches.
func identityLost(where string, id verify.Identity) []string {
	var lost []string
	if ext := extensions(id); len(ext) > 0 {
		lost = append(lost, fmt.Sprintf("%s: identity %q certificate extensions (%s)", where, id.Name, strings.Join(ext, ", ")))
	}
	return lost
}

// extensions names the Fulcio extensions an identity demands.
func extensions(id verify.Identity) []string {
	b, _ := yaml.Marshal(id.Extensions)
	var m map[string]any
	_ = yaml.Unmarshal(b, &m)
	var out []string
	for k, v := range m {
		if s, ok := v.(string); ok && s != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// exact writes an issuer or subject as a regexp matching only itself, or
// returns the policy's regexp (Go syntax, unanchored, as addonpack and
// cosign both match it).
func exact(value, re string) string {
	if value != "" {
		return "^" + regexp.QuoteMeta(value) + "$"
	}
	return re
}
