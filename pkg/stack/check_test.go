package stack

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	const operator = "  - repository: registry.example/addons/cert-operator\n    version: '>=0.1.0, <1.0.0'\n"
	f := certFixture()
	st := writeStack(t, "addons:\n"+operator)
	l, err := Resolve(t.Context(), f, st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if drift, err := Check(t.Context(), f, st, l); err != nil || len(drift) != 0 {
		t.Fatalf("fresh lock: drift %v, err %v", drift, err)
	}

	// The tag 1.15.3 is moved to another artifact; 0.2.0 is deleted.
	moved := f.repos["registry.example/addons/cert-manager"]["1.15.3"]
	old := moved.Digest
	moved.Digest = f.repos["registry.example/addons/cert-manager"]["1.14.0"].Digest
	f.repos["registry.example/addons/cert-manager"]["1.15.3"] = moved
	delete(f.repos["registry.example/addons/cert-operator"], "0.2.0")
	// And the stack file now asks for another range and one more add-on.
	st2 := writeStack(t, "addons:\n  - repository: registry.example/addons/cert-operator\n    version: '>=0.2.0'\n  - repository: registry.example/addons/webhook\n    version: '*'\n")
	drift, err := Check(t.Context(), f, st2, l)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`cert-operator: stack requires ">=0.2.0", lock was made for ">=0.1.0, <1.0.0"`,
		`registry.example/addons/webhook: in the stack file, not in the lock`,
		`cert-manager: tag 1.15.3 now ` + moved.Digest.String() + `, locked ` + old.String(),
		`cert-operator: tag 0.2.0 is gone, locked `,
	}
	if len(drift) != len(want) {
		t.Fatalf("drift = %q", drift)
	}
	for i := range want {
		if !strings.HasPrefix(drift[i], want[i]) {
			t.Errorf("drift[%d] = %q, want %q", i, drift[i], want[i])
		}
	}
}

func TestLockRoundTrip(t *testing.T) {
	st := writeStack(t, "addons:\n  - repository: registry.example/addons/webhook\n    version: '*'\n")
	l, err := Resolve(t.Context(), certFixture(), st, Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := LockPath(st.Path)
	if err := l.Write(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadLock(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := l.Marshal()
	b, _ := back.Marshal()
	if string(a) != string(b) {
		t.Fatalf("round trip differs:\n%s\n%s", a, b)
	}
	golden(t, "webhook.lock", b)
}

func TestLoadRefusals(t *testing.T) {
	tests := []struct{ body, msg string }{
		{"addons: []\n", "addons: invalid stack: must hold 1 to 64 entries, not 0"},
		{"addons:\n  - repository: r.example/a\n", "addons[0]: invalid stack: give exactly one of version and digest"},
		{"addons:\n  - repository: r.example/a:1.0.0\n    version: '*'\n", `addons[0].repository: invalid stack: "r.example/a:1.0.0" is not an OCI repository`},
		{"addons:\n  - repository: r.example/a\n    version: '>=1 <'\n", "addons[0].version: invalid stack"},
		{"addons:\n  - repository: r.example/a\n    digest: sha256:00\n", `addons[0].digest: invalid stack: "sha256:00" is not a sha256 digest`},
		{"addons:\n  - repository: r.example/a\n    version: '*'\n  - repository: r.example/a\n    version: '1'\n", "addons[1].repository: invalid stack: r.example/a is also addons[0]"},
		{"addons:\n  - repository: r.example/a\n    version: '*'\n    value: x.yaml\n", `unknown field "value"`},
	}
	for _, tt := range tests {
		path := t.TempDir() + "/addons.yaml"
		if err := writeFile(path, []byte("apiVersion: addonpack.dev/v1alpha1\nkind: Stack\n"+tt.body)); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), path) {
			t.Errorf("Load(%q) = %v\nwant %q naming the file", tt.body, err, tt.msg)
		}
	}
}
