package convert

import "github.com/addonpack/addonpack/pkg/errdef"

// ErrConvert is matched by every error of this package: a config object
// that cannot be converted, or conversion rules that are refused.
var ErrConvert = errdef.New(errdef.ErrInvalid, "conversion failed")
