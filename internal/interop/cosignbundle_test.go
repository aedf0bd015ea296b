package interop_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCosignVerifiesBundles runs docs/signing.md's cosign commands for
// --signature-format bundle artifacts, as written (the registry, key and
// trusted root paths substituted; --allow-insecure-registry for the plain
// HTTP test registries), with the real cosign CLI.
func TestCosignVerifiesBundles(t *testing.T) {
	cosign := tool(t, "cosign")
	raw, err := os.ReadFile("../../docs/signing.md")
	if err != nil {
		t.Fatal(err)
	}
	var rootJSON string
	var cmds [][]string
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "echo '") && strings.HasSuffix(line, "' > trusted_root.json"):
			rootJSON = strings.TrimSuffix(strings.TrimPrefix(line, "echo '"), "' > trusted_root.json")
		case strings.HasPrefix(line, "cosign verify") && strings.Contains(line, "--new-bundle-format") && strings.Contains(line, "--key"):
			cmds = append(cmds, strings.Fields(line)[1:])
		}
	}
	if rootJSON == "" || len(cmds) != 2 {
		t.Fatalf("docs/signing.md's bundle commands not found: root %q, %d commands", rootJSON, len(cmds))
	}
	for _, reg := range registries {
		t.Run(reg.Name, func(t *testing.T) {
			p := publish(t, reg.Start(t), "addons/hello", "bundle")
			root := filepath.Join(p.dir, "trusted_root.json")
			if err := os.WriteFile(root, []byte(rootJSON), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, c := range cmds {
				args := []string{}
				for _, a := range c {
					switch a {
					case "release.pub":
						a = p.key + ".pub"
					case "trusted_root.json":
						a = root
					case "localhost:5000/addons/hello:0.1.0":
						a = p.pinned
					}
					args = append(args, a)
				}
				args = append(args, "--allow-insecure-registry")
				if out := peer(t, cosign, nil, args...); !claims(out, p.digest) {
					t.Fatalf("cosign %s printed no claim about %s:\n%s", strings.Join(args, " "), p.digest, out)
				}
			}
		})
	}
}

// claims reports whether cosign's output names digest: in a signature's
// critical section, or in the subject of an attestation's DSSE payload.
func claims(out, digest string) bool {
	if strings.Contains(out, digest) {
		return true
	}
	_, hex, _ := strings.Cut(digest, ":")
	for _, line := range strings.Split(out, "\n") {
		var env struct{ Payload []byte }
		if json.Unmarshal([]byte(line), &env) == nil && strings.Contains(string(env.Payload), `"sha256":"`+hex+`"`) {
			return true
		}
	}
	return false
}
