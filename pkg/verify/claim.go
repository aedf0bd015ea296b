package verify

import (
	"github.com/addonpack/addonpack/pkg/registry"
	"github.com/addonpack/addonpack/pkg/spec"
)

// Claim is what ref says about the add-on it names (specs/artifact.md
// section 11.6): its repository names the add-on and a semver tag its
// version. The add-on's name is name when set (--name, a stack entry),
// else the policy's Names entry for ref's repository (p may be nil), else
// the repository's last path element.
func Claim(ref registry.Reference, name string, p *Policy) spec.Claim {
	if name == "" && p != nil {
		name = p.Names[ref.Repo()]
	}
	return spec.Claim{Repository: ref.Repository, Tag: ref.Tag, Name: name}
}
