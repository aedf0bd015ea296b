package render

import (
	"os"
	"slices"
	"testing"
)

func TestImages(t *testing.T) {
	tests := []struct {
		name     string
		rendered string
		want     []string
	}{
		{
			name:     "empty",
			rendered: "",
			want:     []string{},
		},
		{
			name: "pod with init and ephemeral containers",
			rendered: `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
  - {name: init, image: "busybox:1.36"}
  containers:
  - {name: app, image: "example.com/app:v2"}
  - {name: sidecar, image: "example.com/proxy@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}
  ephemeralContainers:
  - {name: debug, image: "busybox:1.36"}
`,
			want: []string{"busybox:1.36", "example.com/app:v2", "example.com/proxy@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
		},
		{
			name: "cronjob nested template and duplicates across documents",
			rendered: `apiVersion: batch/v1
kind: CronJob
metadata: {name: c}
spec:
  schedule: "@hourly"
  jobTemplate:
    spec:
      template:
        spec:
          initContainers:
          - {name: migrate, image: "example.com/migrate:1"}
          containers:
          - {name: job, image: "example.com/job:1"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      containers:
      - {name: job, image: "example.com/job:1"}
      - {name: noimage}
      - {name: empty, image: ""}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
data:
  containers: "image: not-an-image"
`,
			want: []string{"example.com/job:1", "example.com/migrate:1"},
		},
		{
			name: "custom resource with a pod template",
			rendered: `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: r}
spec:
  template:
    spec:
      containers:
      - {name: web, image: "nginx:1.27"}
---
apiVersion: example.com/v1
kind: Workers
metadata: {name: w}
spec:
  pools:
  - name: a
    podSpec:
      containers:
      - {name: w, image: "example.com/worker:3"}
`,
			want: []string{"example.com/worker:3", "nginx:1.27"},
		},
		{
			name: "image behind a YAML alias",
			rendered: `apiVersion: v1
kind: Pod
metadata: {name: p, annotations: {img: &img "example.com/aliased:1"}}
spec:
  containers:
  - {name: a, image: *img}
`,
			want: []string{"example.com/aliased:1"},
		},
		{
			name: "list kind",
			rendered: `apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: StatefulSet
  metadata: {name: s}
  spec:
    template:
      spec:
        containers:
        - {name: db, image: "postgres:16"}
`,
			want: []string{"postgres:16"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Images([]byte(tt.rendered))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Images = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestImagesGolden(t *testing.T) {
	out, err := os.ReadFile("testdata/golden/coredns-nodelocal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Images(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"registry.k8s.io/coredns/coredns:v1.11.3", "registry.k8s.io/dns/k8s-dns-node-cache:1.23.1"}
	if !slices.Equal(got, want) {
		t.Errorf("Images = %q, want %q", got, want)
	}
}

func TestImagesInvalidYAML(t *testing.T) {
	if _, err := Images([]byte("kind: [unclosed\n")); err == nil {
		t.Error("Images accepted invalid YAML")
	}
}
