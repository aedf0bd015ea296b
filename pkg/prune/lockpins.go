package prune

import (
	"github.com/opencontainers/go-digest"
	"sigs.k8s.io/yaml"

	"github.com/addonpack/addonpack/pkg/stack"
)

// StackLock reads a stack lock file (specs/stack.md section 4.3): it pins
// the digest of every add-on it lists.
type StackLock struct{}

// ReadPins implements PinReader; it claims files whose kind is StackLock.
func (StackLock) ReadPins(name string, data []byte) ([]digest.Digest, bool, error) {
	var head struct {
		Kind string `json:"kind"`
	}
	if yaml.Unmarshal(data, &head) != nil || head.Kind != stack.KindLock {
		return nil, false, nil
	}
	l, err := stack.ReadLock(name)
	if err != nil {
		return nil, true, err
	}
	pins := make([]digest.Digest, 0, len(l.Addons))
	for _, a := range l.Addons {
		pins = append(pins, a.Digest)
	}
	return pins, true, nil
}
