// Package kms links sigstore's KMS providers into the binary, so that
// keys.LoadSigner and keys.LoadVerifier accept "awskms://", "gcpkms://",
// "azurekms://" and "hashivault://" references. Import it for its side
// effect; the addonpack command does. Libraries that do not need KMS leave
// it out and stay free of the cloud SDKs.
package kms

import (
	_ "github.com/sigstore/sigstore/pkg/signature/kms/aws"        // awskms://
	_ "github.com/sigstore/sigstore/pkg/signature/kms/azure"      // azurekms://
	_ "github.com/sigstore/sigstore/pkg/signature/kms/gcp"        // gcpkms://
	_ "github.com/sigstore/sigstore/pkg/signature/kms/hashivault" // hashivault://
)
