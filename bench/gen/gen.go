// Package gen writes deterministic add-on source trees for benchmarks: the
// same Shape always produces byte-identical files (a fixed splitmix64 stream,
// no clock, no map iteration), so artifact digests are stable across runs
// and machines.
//
// Every tree is a working add-on: addon.yaml with a component-config type,
// a config schema and local-config defaults wired into the manifests with
// kustomize replacements (the `addonpack init` layout), plus generated
// CustomResourceDefinitions that bring it to the requested size.
package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Shape describes a generated add-on.
type Shape struct {
	Name  string // add-on name, a DNS label
	Files int    // total number of files, at least 10
	Bytes int64  // approximate total size of all files
	// Unlisted keeps the CRD files out of the kustomization's resources: they
	// are packed but not rendered (for the huge add-on, which kustomize could
	// not build in bounded memory).
	Unlisted bool
	Seed     uint64
}

// Small is the small add-on: 15 files, ~150 KB.
func Small(name string, seed uint64) Shape {
	return Shape{Name: name, Files: 15, Bytes: 150_000, Seed: seed}
}

// Large is the large add-on: 200 files, ~43 MB of YAML.
func Large() Shape { return Shape{Name: "large", Files: 200, Bytes: 43_000_000, Seed: 2} }

// Huge is a ~1 GB add-on (1,024 files of ~1 MiB, not rendered).
func Huge() Shape {
	return Shape{Name: "huge", Files: 1024 + baseFiles, Bytes: 1 << 30, Unlisted: true, Seed: 3}
}

// baseFiles is the number of fixed files every add-on has.
const baseFiles = 9

// Write creates the add-on in dir (which must not exist or be empty) and
// returns the total bytes written.
func Write(dir string, s Shape) (int64, error) {
	if s.Files < baseFiles+1 {
		return 0, fmt.Errorf("gen: %d files: need at least %d", s.Files, baseFiles+1)
	}
	r := rng(s.Seed*0x9e3779b97f4a7c15 + 1)
	nCRD := s.Files - baseFiles
	var crdNames []string
	for i := 0; i < nCRD; i++ {
		crdNames = append(crdNames, fmt.Sprintf("crds/%s-%03d.yaml", s.Name, i))
	}
	base := map[string]string{
		"addon.yaml":           addonYAML(s),
		"kustomization.yaml":   kustomizationYAML(s, crdNames),
		"config/schema.yaml":   schemaYAML,
		"config/defaults.yaml": defaultsYAML(s),
		"namespace.yaml":       fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", s.Name),
		"serviceaccount.yaml":  fmt.Sprintf("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: %s\nautomountServiceAccountToken: false\n", s.Name),
		"rbac.yaml":            rbacYAML(s),
		"deployment.yaml":      deploymentYAML(s),
		"service.yaml":         serviceYAML(s),
	}
	var total int64
	write := func(rel, data string) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		total += int64(len(data))
		return os.WriteFile(p, []byte(data), 0o644)
	}
	for _, rel := range sortedKeys(base) {
		if err := write(rel, base[rel]); err != nil {
			return total, err
		}
	}
	per := (s.Bytes - total) / int64(nCRD)
	if per < 2000 {
		per = 2000
	}
	for i, rel := range crdNames {
		if err := write(rel, crd(s, i, int(per), &r)); err != nil {
			return total, err
		}
	}
	return total, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// insertion sort: tiny, deterministic, no sort import needed
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

func addonYAML(s Shape) string {
	return fmt.Sprintf(`apiVersion: addonpack.dev/v1alpha1
kind: Addon
metadata:
  name: %[1]s
spec:
  version: 1.0.0
  description: %[1]s, a generated benchmark add-on (operator with CRDs).
  license: Apache-2.0
  kustomize: .
  config:
    apiVersion: %[1]s.addons.example.com/v1alpha1
    kind: %[2]sConfig
    schema: config/schema.yaml
    defaults: config/defaults.yaml
  kubernetes: ">=1.27.0-0"
`, s.Name, kindName(s.Name))
}

func kindName(name string) string {
	var b strings.Builder
	up := true
	for _, c := range name {
		if c == '-' {
			up = true
			continue
		}
		if up && c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up = false
		b.WriteRune(c)
	}
	return b.String()
}

func kustomizationYAML(s Shape, crds []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: %s\nresources:\n", s.Name)
	for _, r := range []string{"namespace.yaml", "serviceaccount.yaml", "rbac.yaml", "deployment.yaml", "service.yaml", "config/defaults.yaml"} {
		fmt.Fprintf(&b, "  - %s\n", r)
	}
	if !s.Unlisted {
		for _, r := range crds {
			fmt.Fprintf(&b, "  - %s\n", r)
		}
	}
	fmt.Fprintf(&b, `labels:
  - pairs:
      app.kubernetes.io/part-of: %[1]s
      app.kubernetes.io/managed-by: addonpack
replacements:
  - source:
      kind: %[2]sConfig
      fieldPath: spec.replicas
    targets:
      - select:
          kind: Deployment
          name: %[1]s
        fieldPaths:
          - spec.replicas
  - source:
      kind: %[2]sConfig
      fieldPath: spec.logLevel
    targets:
      - select:
          kind: Deployment
          name: %[1]s
        fieldPaths:
          - spec.template.spec.containers.[name=manager].env.[name=LOG_LEVEL].value
  - source:
      kind: %[2]sConfig
      fieldPath: spec.resources.memory
    targets:
      - select:
          kind: Deployment
          name: %[1]s
        fieldPaths:
          - spec.template.spec.containers.[name=manager].resources.limits.memory
`, s.Name, kindName(s.Name))
	return b.String()
}

const schemaYAML = `# The structural schema of the config object's spec (OpenAPI v3 / JSON Schema).
type: object
required: [replicas, logLevel, resources]
properties:
  replicas:
    type: integer
    description: Number of controller replicas.
    minimum: 1
    maximum: 5
    default: 1
  logLevel:
    type: string
    description: Controller log verbosity.
    enum: [debug, info, warn, error]
    default: info
  resources:
    type: object
    required: [memory]
    properties:
      memory:
        type: string
        description: Memory limit of the controller container.
        pattern: '^[0-9]+(Mi|Gi)$'
        default: 128Mi
    additionalProperties: false
additionalProperties: false
`

func defaultsYAML(s Shape) string {
	return fmt.Sprintf(`apiVersion: %s.addons.example.com/v1alpha1
kind: %sConfig
metadata:
  name: %s
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  replicas: 2
  logLevel: info
  resources:
    memory: 128Mi
`, s.Name, kindName(s.Name), s.Name)
}

func rbacYAML(s Shape) string {
	return fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: %[1]s-manager
rules:
  - apiGroups: ["%[1]s.example.com"]
    resources: ["*"]
    verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
  - apiGroups: [""]
    resources: ["events"]
    verbs: ["create", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: %[1]s-manager
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: %[1]s-manager
subjects:
  - kind: ServiceAccount
    name: %[1]s
    namespace: %[1]s
`, s.Name)
}

func deploymentYAML(s Shape) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  labels:
    app.kubernetes.io/name: %[1]s
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: %[1]s
  template:
    metadata:
      labels:
        app.kubernetes.io/name: %[1]s
    spec:
      serviceAccountName: %[1]s
      securityContext:
        runAsNonRoot: true
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: manager
          image: registry.example.com/operators/%[1]s:v1.0.0
          args: ["--leader-elect", "--metrics-bind-address=:8080"]
          env:
            - name: LOG_LEVEL
              value: set-by-config
          ports:
            - name: metrics
              containerPort: 8080
          resources:
            requests:
              cpu: 10m
              memory: 64Mi
            limits:
              memory: set-by-config
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: ["ALL"]
`, s.Name)
}

func serviceYAML(s Shape) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: %[1]s-metrics
spec:
  selector:
    app.kubernetes.io/name: %[1]s
  ports:
    - name: metrics
      port: 8080
      targetPort: metrics
`, s.Name)
}

// rng is splitmix64.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

var words = strings.Fields(`
account action address affinity algorithm annotation api approval authority backoff
backend bucket bundle cache capacity certificate challenge channel checksum cluster
collector condition config connection consumer container controller credential cron
dashboard database deadline delegation deployment descriptor destination discovery
domain duration encryption endpoint environment event exporter expiry failure field
filter gateway generation group handler header health host identity image index
ingress instance interval issuer job key label lease limit listener location lock
manager matcher member message metadata metric mode namespace network node object
observed operator owner partition path peer period phase pod policy pool port
priority probe protocol provider proxy queue quota ratio reason reconcile record
region registry release replica request resource retention revision role rollout
route rule scheduler scope secret selector server service session shard signature
snapshot source spec stage state status storage strategy subject subnet suspend
target template tenant threshold timeout token topology traffic transport trigger
upstream usage user validation value version volume webhook weight window workload zone`)

var types = []string{"string", "integer", "boolean", "string", "string", "integer"}

// crd writes a CustomResourceDefinition of about size bytes whose schema is
// a deep, wide, kubebuilder-style openAPIV3Schema.
func crd(s Shape, i, size int, r *rng) string {
	group := s.Name + ".example.com"
	kind := kindName(words[r.intn(len(words))]) + kindName(words[r.intn(len(words))]) + fmt.Sprint(i)
	plural := strings.ToLower(kind) + "s"
	var b strings.Builder
	b.Grow(size + 4096)
	fmt.Fprintf(&b, `# Generated by addonpack bench/gen; DO NOT EDIT.
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    controller-gen.kubebuilder.io/version: v0.16.5
  name: %[3]s.%[1]s
spec:
  group: %[1]s
  names:
    kind: %[2]s
    listKind: %[2]sList
    plural: %[3]s
    singular: %[4]s
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        description: %[2]s is the Schema for the %[3]s API.
        type: object
        properties:
          apiVersion:
            type: string
          kind:
            type: string
          metadata:
            type: object
          spec:
            type: object
            properties:
`, group, kind, plural, strings.ToLower(kind))
	// Fields under spec, grouped in nested objects, until the size is reached.
	field := 0
	for b.Len() < size {
		obj := fmt.Sprintf("%s%s%d", words[r.intn(len(words))], kindName(words[r.intn(len(words))]), field)
		fmt.Fprintf(&b, "              %s:\n                description: %s\n                type: object\n                properties:\n", obj, sentence(r, 12+r.intn(20)))
		n := 4 + r.intn(10)
		for j := 0; j < n && b.Len() < size; j++ {
			name := fmt.Sprintf("%s%s%d", words[r.intn(len(words))], kindName(words[r.intn(len(words))]), j)
			t := types[r.intn(len(types))]
			fmt.Fprintf(&b, "                  %s:\n                    description: %s\n                    type: %s\n", name, sentence(r, 8+r.intn(30)), t)
			switch t {
			case "integer":
				fmt.Fprintf(&b, "                    format: int32\n                    minimum: 0\n                    maximum: %d\n", 1+r.intn(65535))
			case "string":
				if r.intn(3) == 0 {
					fmt.Fprintf(&b, "                    enum:\n                    - %s\n                    - %s\n                    - %s\n", kindName(words[r.intn(len(words))]), kindName(words[r.intn(len(words))]), kindName(words[r.intn(len(words))]))
				} else {
					fmt.Fprintf(&b, "                    maxLength: %d\n                    pattern: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\n", 63+r.intn(190))
				}
			}
		}
		field++
	}
	b.WriteString("          status:\n            type: object\n            x-kubernetes-preserve-unknown-fields: true\n")
	return b.String()
}

func sentence(r *rng, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.intn(len(words))])
	}
	b.WriteByte('.')
	return b.String()
}
