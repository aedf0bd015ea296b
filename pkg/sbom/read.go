package sbom

import (
	"bytes"
	"fmt"

	cdx "github.com/CycloneDX/cyclonedx-go"
	"github.com/opencontainers/go-digest"
)

// Summary is what an SBOM made by Document says, read back.
type Summary struct {
	Images []Image `json:"images"`
	// Files is how many files of the package tree it lists.
	Files int `json:"files"`
}

// Read parses a CycloneDX JSON document and returns its container images
// (with addonpack's status properties where present) and its file count.
func Read(doc []byte) (*Summary, error) {
	var bom cdx.BOM
	if err := cdx.NewBOMDecoder(bytes.NewReader(doc), cdx.BOMFileFormatJSON).Decode(&bom); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDocument, err)
	}
	s := &Summary{Images: []Image{}}
	if bom.Components == nil {
		return s, nil
	}
	for _, c := range *bom.Components {
		switch c.Type {
		case cdx.ComponentTypeFile:
			s.Files++
		case cdx.ComponentTypeContainer:
			img := Image{Reference: c.Name, Status: ImageUnresolved}
			if c.Hashes != nil {
				for _, h := range *c.Hashes {
					if h.Algorithm == cdx.HashAlgoSHA256 {
						img.Digest = digest.NewDigestFromEncoded(digest.SHA256, h.Value)
						img.Status = ImageResolved
					}
				}
			}
			if c.Properties != nil {
				for _, p := range *c.Properties {
					switch p.Name {
					case PropertyReference:
						img.Reference = p.Value
					case PropertyStatus:
						img.Status = p.Value
					case PropertyError:
						img.Error = p.Value
					}
				}
			}
			if img.Digest != "" && img.Digest.Validate() != nil {
				return nil, fmt.Errorf("%w: image %s: digest %q", ErrDocument, img.Reference, img.Digest)
			}
			s.Images = append(s.Images, img)
		}
	}
	return s, nil
}
