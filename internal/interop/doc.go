// Package interop holds only tests: addonpack's artifacts, signatures and
// copies exercised with the real client binaries people mix it with — oras
// v1.3.6, crane v0.22.1, skopeo (Debian), cosign v2.6.5 and cosign v3.1.3
// (installed as cosign3; TestSignatureMatrix) — against both
// the embedded test registry and CNCF distribution 2.8, plus registry
// credentials (htpasswd basic auth through docker config.json and a
// credential helper) against distribution.
//
// scripts/install-peers.sh installs oras, crane and both cosigns into
// $ADDONPACK_TOOLS/bin (default ~/.cache/addonpack-tools/bin) and
// scripts/ensure-tools.sh installs skopeo; `make test` runs both. A test
// skips, loudly, only when its binary is absent.
package interop
