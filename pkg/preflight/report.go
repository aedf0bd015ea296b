package preflight

import (
	"fmt"
	"io"
	"strings"
)

// The checks, as findings name them.
const (
	CheckKubernetes = "kubernetes" // the add-on's range against the server version
	CheckServed     = "served"     // every kind is served or created by a CRD before it
	CheckAccess     = "access"     // create and patch of every object are allowed
	CheckCRD        = "crd"        // an installed CRD keeps its served and stored versions and fields
	CheckWebhook    = "webhook"    // (warning) a webhook whose backend the same add-on installs
)

// Report is the outcome of a preflight (specs/cli-output.md "preflight").
type Report struct {
	// Server is the API server's URL; ServerVersion its gitVersion.
	Server        string `json:"server,omitempty"`
	ServerVersion string `json:"serverVersion"`
	// User and Groups are whom the access reviews asked about (--as);
	// left out for the caller's own credentials.
	User   string        `json:"user,omitempty"`
	Groups []string      `json:"groups,omitempty"`
	Passed bool          `json:"passed"`
	Addons []AddonReport `json:"addons"`
}

// AddonReport is what the checks found for one add-on, in install order.
type AddonReport struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	// Source is the pinned reference, layout or directory rendered.
	Source string `json:"source,omitempty"`
	// Kubernetes is the add-on's range ("" : any version).
	Kubernetes string `json:"kubernetes,omitempty"`
	Objects    int    `json:"objects"`
	// Checked counts what was asked: kinds looked up, access reviews
	// made, installed CRDs compared.
	Checked  Checked   `json:"checked"`
	Findings []Finding `json:"findings,omitempty"`
	Warnings []Finding `json:"warnings,omitempty"`
}

// Checked counts the questions asked for one add-on.
type Checked struct {
	Kinds         int `json:"kinds"`
	AccessReviews int `json:"accessReviews"`
	CRDs          int `json:"crds"`
}

// Finding is one thing a check found: the check, the object it is about
// ("apps/v1 Deployment hello/hello") and what is wrong.
type Finding struct {
	Check   string `json:"check"`
	Object  string `json:"object,omitempty"`
	Message string `json:"message"`
}

func (f Finding) String() string {
	if f.Object == "" {
		return f.Check + ": " + f.Message
	}
	return f.Check + ": " + f.Object + ": " + f.Message
}

// Err is nil when the report passed, else ErrFailed naming the count and
// the first finding.
func (r *Report) Err() error {
	var all []Finding
	for _, a := range r.Addons {
		for _, f := range a.Findings {
			all = append(all, Finding{Check: f.Check, Object: a.Name + ": " + f.Object, Message: f.Message})
		}
	}
	switch len(all) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%w: %s", ErrFailed, all[0])
	}
	return fmt.Errorf("%w: %d findings, the first: %s", ErrFailed, len(all), all[0])
}

// WriteText writes the report for people.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Cluster %s (Kubernetes %s)", r.Server, r.ServerVersion)
	if r.User != "" || len(r.Groups) > 0 {
		fmt.Fprintf(&b, ", access reviewed for user %q groups %v", r.User, r.Groups)
	}
	b.WriteString("\n")
	findings := 0
	for _, a := range r.Addons {
		fmt.Fprintf(&b, "%s %s (%s): %d objects, %d kinds, %d access reviews, %d installed CRDs compared\n",
			a.Name, a.Version, a.Source, a.Objects, a.Checked.Kinds, a.Checked.AccessReviews, a.Checked.CRDs)
		for _, f := range a.Findings {
			fmt.Fprintf(&b, "  FAIL %s\n", f)
		}
		for _, f := range a.Warnings {
			fmt.Fprintf(&b, "  warn %s\n", f)
		}
		findings += len(a.Findings)
	}
	if r.Passed {
		b.WriteString("Preflight passed\n")
	} else {
		fmt.Fprintf(&b, "Preflight failed: %d findings\n", findings)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
