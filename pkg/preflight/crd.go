package preflight

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// CRD is what the checks read of a CustomResourceDefinition
// (apiextensions.k8s.io/v1), rendered or installed.
type CRD struct {
	Name, Group, Kind, Plural string
	Namespaced                bool
	Versions                  []CRDVersion
	// StoredVersions is status.storedVersions of an installed CRD: the
	// versions objects may be stored as in etcd.
	StoredVersions []string
}

// CRDVersion is one version of a CRD with its schema.
type CRDVersion struct {
	Name           string
	Served, Stored bool
	Schema         *Schema
}

// Schema is the part of an OpenAPI v3 schema the field comparison walks.
type Schema struct {
	Properties map[string]*Schema `json:"properties,omitempty"`
	Items      *Schema            `json:"items,omitempty"`
	// AdditionalProperties is a schema, or a bool (kept as nil).
	AdditionalProperties json.RawMessage `json:"additionalProperties,omitempty"`
	PreserveUnknown      bool            `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
}

// additional returns the schema of additionalProperties, or nil (none or a
// bool), and whether any is allowed.
func (s *Schema) additional() (*Schema, bool) {
	if len(s.AdditionalProperties) == 0 {
		return nil, false
	}
	var b bool
	if json.Unmarshal(s.AdditionalProperties, &b) == nil {
		return nil, b
	}
	var a Schema
	if json.Unmarshal(s.AdditionalProperties, &a) != nil {
		return nil, true
	}
	return &a, true
}

// ParseCRD reads a CustomResourceDefinition in JSON.
func ParseCRD(b []byte) (*CRD, error) {
	var doc struct {
		APIVersion string `json:"apiVersion"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Group string `json:"group"`
			Names struct {
				Kind   string `json:"kind"`
				Plural string `json:"plural"`
			} `json:"names"`
			Scope    string `json:"scope"`
			Versions []struct {
				Name    string `json:"name"`
				Served  bool   `json:"served"`
				Storage bool   `json:"storage"`
				Schema  struct {
					OpenAPIV3Schema *Schema `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
		Status struct {
			StoredVersions []string `json:"storedVersions"`
		} `json:"status"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition: %w", err)
	}
	c := &CRD{Name: doc.Metadata.Name, Group: doc.Spec.Group, Kind: doc.Spec.Names.Kind, Plural: doc.Spec.Names.Plural,
		Namespaced: doc.Spec.Scope == "Namespaced", StoredVersions: doc.Status.StoredVersions}
	for _, v := range doc.Spec.Versions {
		c.Versions = append(c.Versions, CRDVersion{Name: v.Name, Served: v.Served, Stored: v.Storage, Schema: v.Schema.OpenAPIV3Schema})
	}
	return c, nil
}

func (c *CRD) version(name string) *CRDVersion {
	for i := range c.Versions {
		if c.Versions[i].Name == name {
			return &c.Versions[i]
		}
	}
	return nil
}

// maxDroppedFields bounds the fields listed per version: the first ones
// say enough.
const maxDroppedFields = 10

// compareCRD lists what replacing the installed CRD old with new would
// lose: a version old serves that new does not, a stored version new no
// longer has (objects stored so could no longer be read), and, for each
// version both have, a field of old's schema new's does not have.
func compareCRD(old, new *CRD) []string {
	var out []string
	for _, ov := range old.Versions {
		if !ov.Served {
			continue
		}
		if nv := new.version(ov.Name); nv == nil || !nv.Served {
			out = append(out, fmt.Sprintf("the installed CRD serves %s, the add-on's does not: clients of %s/%s break", ov.Name, old.Group, ov.Name))
		}
	}
	for _, s := range old.StoredVersions {
		if new.version(s) == nil {
			out = append(out, fmt.Sprintf("status.storedVersions lists %s, which the add-on's CRD drops: objects stored as %s must be migrated and %s removed from storedVersions first", s, s, s))
		}
	}
	for _, ov := range old.Versions {
		nv := new.version(ov.Name)
		if nv == nil || ov.Schema == nil {
			continue
		}
		var dropped []string
		droppedFields(ov.Schema, nv.Schema, "", &dropped)
		sort.Strings(dropped)
		if len(dropped) > maxDroppedFields {
			dropped = append(dropped[:maxDroppedFields], fmt.Sprintf("… (%d more)", len(dropped)-maxDroppedFields))
		}
		if len(dropped) > 0 {
			out = append(out, fmt.Sprintf("version %s drops fields of the installed schema: %s", ov.Name, strings.Join(dropped, ", ")))
		}
	}
	return out
}

// droppedFields appends to out each field path of old that new does not
// have, the topmost only; a path under a part of new that keeps unknown
// fields (x-kubernetes-preserve-unknown-fields, additionalProperties) is
// kept, not dropped.
func droppedFields(old, new *Schema, path string, out *[]string) {
	if old == nil {
		return
	}
	if new == nil || new.PreserveUnknown {
		if new == nil {
			*out = append(*out, path)
		}
		return
	}
	addNew, anyNew := new.additional()
	keys := make([]string, 0, len(old.Properties))
	for k := range old.Properties {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := path + "." + k
		switch n, ok := new.Properties[k]; {
		case ok:
			droppedFields(old.Properties[k], n, p, out)
		case addNew != nil:
			droppedFields(old.Properties[k], addNew, p, out)
		case !anyNew:
			*out = append(*out, p)
		}
	}
	if old.Items != nil {
		if new.Items == nil {
			*out = append(*out, path+"[]")
		} else {
			droppedFields(old.Items, new.Items, path+"[]", out)
		}
	}
	if addOld, _ := old.additional(); addOld != nil {
		if addNew != nil {
			droppedFields(addOld, addNew, path+".*", out)
		} else if !anyNew {
			*out = append(*out, path+".*")
		}
	}
}
