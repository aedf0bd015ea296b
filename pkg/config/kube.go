package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/addonpack/addonpack/pkg/errdef"
	"github.com/addonpack/addonpack/pkg/semver"
)

// ErrKubeVersion is returned when an add-on's components depend on the
// Kubernetes version and none (or no valid one) is given.
var ErrKubeVersion = errdef.New(errdef.ErrInvalidArgument, "no valid Kubernetes version")

// kubeRange is a component's `kubernetes`: a range made only of
// comparisons of full versions, so that its boundaries can be listed.
type kubeRange struct {
	rng    semver.Range
	bounds []semver.Version // the versions its comparisons name, as cores
}

var (
	kubeComparison = regexp.MustCompile(`(?:>=|<=|!=|>|<|=)?\s*v?(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?`)
	kubeLeftover   = regexp.MustCompile(`^[\s,]*$`)
)

// parseKubeRange reads a component's `kubernetes` range.
func parseKubeRange(s string) (kubeRange, error) {
	r, err := semver.ParseRange(s)
	if err != nil {
		return kubeRange{}, err
	}
	kr := kubeRange{rng: r}
	for _, alt := range strings.Split(s, "||") {
		if !kubeLeftover.MatchString(kubeComparison.ReplaceAllString(alt, "")) {
			return kubeRange{}, fmt.Errorf("%q: want comparisons of full versions only (>=1.29.0, <1.31.0 || =1.32.1): no ~, ^, wildcards or hyphen ranges", s)
		}
		for _, m := range kubeComparison.FindAllStringSubmatch(alt, -1) {
			v, err := semver.Parse(m[1] + "." + m[2] + "." + m[3])
			if err != nil {
				return kubeRange{}, fmt.Errorf("%q: %w", s, err)
			}
			kr.bounds = append(kr.bounds, v)
		}
	}
	return kr, nil
}

// matches reports whether a Kubernetes version (a core, without
// pre-release) is in the range.
func (k kubeRange) matches(v semver.Version) bool { return k.rng.Match(v) }

// ParseKubeVersion reads a cluster's Kubernetes version as `kubectl
// version` or a cloud prints it ("v1.29.3", "1.29.3-eks-4b2c1"): a leading
// v is dropped, and only MAJOR.MINOR.PATCH is kept, so that ranges are
// compared with the release, whatever the vendor suffix.
func ParseKubeVersion(s string) (semver.Version, error) {
	v, err := semver.Parse(strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V"))
	if err != nil {
		return semver.Version{}, fmt.Errorf("Kubernetes version %q: want MAJOR.MINOR.PATCH (1.29.3, v1.29.3-eks-1): %w: %w", s, ErrKubeVersion, err)
	}
	return v.Core(), nil
}

// kubePoints returns one Kubernetes version in each interval the
// boundaries of ranges cut the versions into — each boundary, the version
// after it (one patch up) and one below the lowest — keeping those allowed
// (addon.yaml spec.kubernetes, when set), ascending.
func kubePoints(ranges []kubeRange, allowed *semver.Range) []semver.Version {
	var points []semver.Version
	add := func(s string) {
		v := semver.MustParse(s)
		if allowed == nil || allowed.Match(v) {
			points = append(points, v) // duplicates go below, after sorting
		}
	}
	var bounds []semver.Version
	for _, r := range ranges {
		bounds = append(bounds, r.bounds...)
	}
	slices.SortFunc(bounds, semver.Version.Compare)
	bounds = slices.CompactFunc(bounds, func(a, b semver.Version) bool { return a.Compare(b) == 0 })
	for i, b := range bounds {
		var major, minor, patch uint64
		fmt.Sscanf(b.String(), "%d.%d.%d", &major, &minor, &patch)
		if i == 0 {
			switch {
			case patch > 0:
				add(fmt.Sprintf("%d.%d.%d", major, minor, patch-1))
			case minor > 0:
				add(fmt.Sprintf("%d.%d.0", major, minor-1))
			case major > 0:
				add(fmt.Sprintf("%d.0.0", major-1))
			}
		}
		add(b.String())
		add(fmt.Sprintf("%d.%d.%d", major, minor, patch+1))
	}
	// Sorted, then compacted: a linear scan per point for duplicates would
	// be quadratic in the boundaries, which an unverified config blob
	// (inspect) chooses.
	slices.SortFunc(points, semver.Version.Compare)
	return slices.CompactFunc(points, func(a, b semver.Version) bool { return a.Compare(b) == 0 })
}

// KubeVersionFlag reads --kube-version: the zero version for "" (none
// given), else ParseKubeVersion's, its error naming the flag.
func KubeVersionFlag(s string) (semver.Version, error) {
	if s == "" {
		return semver.Version{}, nil
	}
	v, err := ParseKubeVersion(s)
	if err != nil {
		return semver.Version{}, fmt.Errorf("--kube-version: %w", err)
	}
	return v, nil
}
