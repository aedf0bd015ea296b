package artifact

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/addonpack/addonpack/pkg/spec"
)

// Info is what `addonpack inspect` shows, in a stable JSON shape.
type Info struct {
	Reference    string               `json:"reference"`
	Digest       string               `json:"digest"`
	MediaType    string               `json:"mediaType"`
	ArtifactType string               `json:"artifactType"`
	Size         int64                `json:"size"`
	Annotations  map[string]string    `json:"annotations,omitempty"`
	Config       ocispec.Descriptor   `json:"config"`
	Layers       []ocispec.Descriptor `json:"layers"`
	Addon        *spec.Addon          `json:"addon"`
}

// Info summarises the loaded artifact.
func (l *Loaded) Info() Info {
	return Info{
		Reference:    l.Ref,
		Digest:       l.Descriptor.Digest.String(),
		MediaType:    l.Manifest.MediaType,
		ArtifactType: l.Manifest.ArtifactType,
		Size:         int64(len(l.ManifestJSON)),
		Annotations:  l.Manifest.Annotations,
		Config:       l.Config,
		Layers:       l.Manifest.Layers,
		Addon:        l.Addon,
	}
}

// WriteText writes the human summary.
func (i Info) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	a := i.Addon
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", k, v)
		}
	}
	row("Reference", i.Reference)
	row("Add-on", a.Metadata.Name+" "+a.Spec.Version)
	row("Description", a.Spec.Description)
	row("Homepage", a.Spec.Homepage)
	row("Source", a.Spec.Source)
	row("Revision", i.Annotations[spec.AnnotationRevision])
	row("Created", i.Annotations[spec.AnnotationCreated])
	row("License", a.Spec.License)
	row("Kubernetes", a.Spec.Kubernetes)
	if c := a.Spec.Config; c != nil {
		row("Config type", c.APIVersion+", Kind="+c.Kind)
	}
	for _, d := range a.Spec.Dependencies {
		row("Depends on", fmt.Sprintf("%s %s (%s)", d.Name, d.Version, d.Repository))
	}
	for _, img := range a.Spec.Images {
		row("Image", img)
	}
	row("Manifest", fmt.Sprintf("%s (%d bytes)", i.Digest, i.Size))
	row("Config blob", fmt.Sprintf("%s %s (%d bytes)", i.Config.MediaType, i.Config.Digest, i.Config.Size))
	for n, l := range i.Layers {
		title := l.Annotations[spec.AnnotationTitle]
		row(fmt.Sprintf("Layer %d", n), strings.TrimSpace(fmt.Sprintf("%s %s (%d bytes) %s", l.MediaType, l.Digest, l.Size, title)))
	}
	return tw.Flush()
}
