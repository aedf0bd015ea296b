package errdef_test

import (
	"errors"
	"fmt"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// A package declares its sentinels in a class; callers test the class.
func Example() {
	errNoSuchTag := errdef.New(errdef.ErrNotFound, "no such tag")
	err := fmt.Errorf("resolve example.com/addons/hello:9.9.9: %w", errNoSuchTag)

	fmt.Println(err)
	fmt.Println(errors.Is(err, errNoSuchTag), errors.Is(err, errdef.ErrNotFound))
	fmt.Println(errdef.ClassOf(err))
	// Output:
	// resolve example.com/addons/hello:9.9.9: no such tag
	// true true
	// not found
}
