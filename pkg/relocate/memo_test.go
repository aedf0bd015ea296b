package relocate

import (
	"errors"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// TestMemo: bytes read once are served again without fetching; a failed
// fetch, bytes larger than memoMax and a descriptor of another size are
// not served from the memo; a nil memo always fetches.
func TestMemo(t *testing.T) {
	small := []byte(`{"small":true}`)
	dSmall := ocispec.Descriptor{Digest: digest.FromBytes(small), Size: int64(len(small))}
	large := make([]byte, memoMax+1)
	dLarge := ocispec.Descriptor{Digest: digest.FromBytes(large), Size: int64(len(large))}
	boom := errors.New("boom")
	tests := []struct {
		name    string
		m       *memo
		d       ocispec.Descriptor
		b       []byte
		first   error // the first fetch's error
		fetches int   // after three reads
	}{
		{"small", newMemo(), dSmall, small, nil, 1},
		{"failed fetch not kept", newMemo(), dSmall, small, boom, 2},
		{"large", newMemo(), dLarge, large, nil, 3},
		{"nil memo", nil, dSmall, small, nil, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			fetch := func() ([]byte, error) {
				n++
				if n == 1 && tt.first != nil {
					return nil, tt.first
				}
				return tt.b, nil
			}
			for i := range 3 {
				b, err := tt.m.read(tt.d, fetch)
				if i == 0 && tt.first != nil {
					if !errors.Is(err, tt.first) {
						t.Fatalf("read %d: %v, want %v", i, err, tt.first)
					}
					continue
				}
				if err != nil || len(b) != len(tt.b) {
					t.Fatalf("read %d: %d bytes, %v", i, len(b), err)
				}
			}
			if n != tt.fetches {
				t.Errorf("%d fetches, want %d", n, tt.fetches)
			}
			other := tt.d
			other.Size++
			if _, ok := tt.m.get(other); ok {
				t.Errorf("served for a descriptor of another size")
			}
		})
	}
}
