package convert

import (
	"regexp"
	"strconv"
	"strings"
)

var kubeVersion = regexp.MustCompile(`^v([0-9]+)(?:(alpha|beta)([0-9]+))?$`)

// versionKey orders the version part of an apiVersion the way Kubernetes
// does: the larger major first; for one major, GA over beta over alpha;
// then the larger minor. ok is false for a version of another form.
func versionKey(apiVersion string) (key [3]int, ok bool) {
	_, v, found := strings.Cut(apiVersion, "/")
	if !found {
		return key, false
	}
	m := kubeVersion.FindStringSubmatch(v)
	if m == nil {
		return key, false
	}
	major, err := strconv.Atoi(m[1])
	if err != nil {
		return key, false
	}
	stage := map[string]int{"alpha": 0, "beta": 1, "": 2}[m[2]]
	minor := 0
	if m[3] != "" {
		if minor, err = strconv.Atoi(m[3]); err != nil {
			return key, false
		}
	}
	return [3]int{major, stage, minor}, true
}

// Newer reports whether apiVersion a is a newer version than b of the same
// API group.
func Newer(a, b string) bool {
	ga, _, _ := strings.Cut(a, "/")
	gb, _, _ := strings.Cut(b, "/")
	ka, oka := versionKey(a)
	kb, okb := versionKey(b)
	if ga != gb || !oka || !okb {
		return false
	}
	for i := range ka {
		if ka[i] != kb[i] {
			return ka[i] > kb[i]
		}
	}
	return false
}

// short is the version part of an apiVersion ("v1beta1").
func short(apiVersion string) string {
	if _, v, ok := strings.Cut(apiVersion, "/"); ok {
		return v
	}
	return apiVersion
}
