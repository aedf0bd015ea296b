package commands_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/addonpack/addonpack/cmd/addonpack/commands"
)

// TestCopy: push --key (classic signature + provenance), sign in the bundle
// format, then copy registry to registry and through a tarball, verifying
// at the destination; on the embedded registry and on distribution 2.8.
func TestCopy(t *testing.T) {
	for _, reg := range bothRegistries {
		t.Run(reg.name, func(t *testing.T) {
			src, dst := reg.host(t), reg.host(t)
			dir := t.TempDir()
			hello := filepath.Join(dir, "hello")
			run(t, nil, "init", hello)
			key := filepath.Join(dir, "release")
			if r := run(t, signEnv, "keygen", "--output-key-prefix", key); r.code != 0 {
				t.Fatalf("keygen: %+v", r)
			}
			ref := src + "/addons/hello:0.1.0"
			p := run(t, signEnv, "push", hello, ref, "--key", key+".key")
			if p.code != 0 {
				t.Fatalf("push: %+v", p)
			}
			digest := strings.TrimSpace(p.out[strings.Index(p.out, "@")+1:])
			if r := run(t, signEnv, "sign", ref, "--key", key+".key", "--signature-format", "bundle"); r.code != 0 {
				t.Fatalf("sign bundle: %+v", r)
			}

			c := run(t, nil, "copy", ref, dst+"/mirror/hello", "--key", key+".pub", "--require-provenance", "--format", "json")
			if c.code != 0 {
				t.Fatalf("copy: %+v", c)
			}
			var res struct {
				Digest, Tag, Destination string
				Copied                   []struct{ Kind, Tag string }
				Verification             struct{ Verified bool }
			}
			if err := json.Unmarshal([]byte(c.out), &res); err != nil || res.Digest != digest || res.Tag != "0.1.0" ||
				!res.Verification.Verified || len(res.Copied) != 4 || res.Destination != dst+"/mirror/hello@"+digest {
				t.Fatalf("copy -o json: %v %s", err, c.out)
			}
			v := run(t, nil, "verify", dst+"/mirror/hello:0.1.0", "--key", key+".pub", "--require-provenance", "--format", "json")
			if v.code != 0 || strings.Count(v.out, `"verdict": "valid"`) != 3 {
				t.Fatalf("verify the copy: %+v", v)
			}

			tarball := filepath.Join(dir, "hello.tar")
			if r := run(t, nil, "copy", ref, "--to-tarball", tarball, "--key", key+".pub"); r.code != 0 || strings.TrimSpace(r.out) != tarball {
				t.Fatalf("copy --to-tarball: %+v", r)
			}
			if r := run(t, nil, "copy", "--from-tarball", tarball, dst+"/airgap/hello:v1", "--key", key+".pub", "--require-provenance"); r.code != 0 ||
				strings.TrimSpace(r.out) != dst+"/airgap/hello@"+digest {
				t.Fatalf("copy --from-tarball: %+v", r)
			}
			if r := run(t, nil, "verify", dst+"/airgap/hello:v1", "--key", key+".pub", "--require-provenance"); r.code != 0 {
				t.Fatalf("verify after the tarball round trip: %+v", r)
			}
			if r := run(t, nil, "pull", dst+"/airgap/hello:v1", "-o", filepath.Join(dir, "pulled"), "--key", key+".pub", "--no-cache"); r.code != 0 {
				t.Fatalf("pull after the tarball round trip: %+v", r)
			}

			other := filepath.Join(dir, "other")
			run(t, signEnv, "keygen", "--output-key-prefix", other)
			for _, tt := range []struct {
				name string
				args []string
				code int
				want string
			}{
				{"no trust flags", []string{"copy", ref, dst + "/x/y"}, commands.ExitUsage, "--insecure-skip-verify"},
				{"one argument", []string{"copy", ref, "--key", key + ".pub"}, commands.ExitUsage, "SRC DST"},
				{"both tarball flags", []string{"copy", ref, "--to-tarball", tarball, "--from-tarball", tarball, "--key", key + ".pub"}, commands.ExitUsage, "not both"},
				{"untrusted", []string{"copy", ref, dst + "/x/y", "--key", other + ".pub"}, commands.ExitVerify, digest},
				{"missing tarball", []string{"copy", "--from-tarball", filepath.Join(dir, "none.tar"), dst + "/x/y", "--key", key + ".pub"}, commands.ExitNotFound, "none.tar"},
				{"missing tag", []string{"copy", src + "/addons/hello:9.9.9", dst + "/x/y", "--key", key + ".pub"}, commands.ExitNotFound, "9.9.9"},
			} {
				t.Run(tt.name, func(t *testing.T) {
					r := run(t, nil, tt.args...)
					if r.code != tt.code || !strings.Contains(r.err, tt.want) {
						t.Fatalf("exit %d (want %d), stderr should name %q:\n%s", r.code, tt.code, tt.want, r.err)
					}
				})
			}
			if r := run(t, nil, "copy", ref, dst+"/unverified/hello", "--insecure-skip-verify"); r.code != 0 || !strings.Contains(r.err, "Warning") {
				t.Fatalf("copy --insecure-skip-verify: %+v", r)
			}
		})
	}
}
