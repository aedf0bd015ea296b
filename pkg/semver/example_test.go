package semver_test

import (
	"fmt"

	"github.com/addonpack/addonpack/pkg/semver"
)

// A repository's tags resolved against a range: the pre-release of 2.0.0 is
// not considered, because the range names no pre-release of 2.0.0.
func Example() {
	tags := []string{"latest", "1.13.0", "1.14.0", "1.15.0-rc.1", "1.15.3", "2.0.0-alpha.1"}
	r, err := semver.ParseRange(">=1.14.0, <3.0.0")
	if err != nil {
		panic(err)
	}
	got, err := semver.FromTags(tags).Select(r, false)
	if err != nil {
		panic(err)
	}
	fmt.Println(got.Tag)
	// Output: 1.15.3
}
