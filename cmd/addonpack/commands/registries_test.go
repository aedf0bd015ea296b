package commands_test

import (
	"testing"

	"github.com/addonpack/addonpack/internal/realregistry"
	"github.com/addonpack/addonpack/testregistry"
)

// bothRegistries are the registries the CLI's registry flows are tested on:
// the embedded one and a real distribution 2.8 process.
var bothRegistries = []struct {
	name string
	host func(*testing.T) string
}{
	{"testregistry", func(t *testing.T) string { return testregistry.New(t).Host() }},
	{"distribution", func(t *testing.T) string { return realregistry.Start(t, realregistry.Options{}) }},
}
