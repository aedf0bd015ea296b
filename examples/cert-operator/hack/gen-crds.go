//go:build ignore

// gen-crds writes the CustomResourceDefinitions of the fictional
// certs.example.com API group into ../crds. It is a maintainer tool only: the
// generated YAML is committed and `addonpack build` never runs this program.
//
//	cd examples/cert-operator && go run ./hack/gen-crds.go
//
// Keys are sorted (sigs.k8s.io/yaml), as in controller-gen output.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

type S = map[string]any

const group = "certs.example.com"

// --- schema helpers ---------------------------------------------------------

func obj(desc string, props S, required ...string) S {
	s := S{"type": "object", "properties": props}
	if desc != "" {
		s["description"] = desc
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func str(desc string) S { return S{"type": "string", "description": desc} }

func strFmt(desc, format string) S { return S{"type": "string", "description": desc, "format": format} }

func enum(desc string, values ...string) S {
	return S{"type": "string", "description": desc, "enum": values}
}

func integer(desc, format string) S {
	s := S{"type": "integer", "description": desc}
	if format != "" {
		s["format"] = format
	}
	return s
}

func boolean(desc string) S { return S{"type": "boolean", "description": desc} }

func arr(desc string, items S) S { return S{"type": "array", "description": desc, "items": items} }

func atomicArr(desc string, items S) S {
	a := arr(desc, items)
	a["x-kubernetes-list-type"] = "atomic"
	return a
}

func strList(desc string) S { return arr(desc, S{"type": "string"}) }

func strMap(desc string) S {
	return S{"type": "object", "description": desc, "additionalProperties": S{"type": "string"}}
}

func with(s S, kv ...any) S {
	for i := 0; i+1 < len(kv); i += 2 {
		s[kv[i].(string)] = kv[i+1]
	}
	return s
}

func quantity(desc string) S {
	s := S{
		"anyOf":                      []any{S{"type": "integer"}, S{"type": "string"}},
		"pattern":                    `^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`,
		"x-kubernetes-int-or-string": true,
	}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// --- Kubernetes core types (as embedded by controller-gen) -------------------

func labelSelectorRequirement() S {
	return obj("A label selector requirement is a selector that contains values, a key, and an operator that relates the key and values.", S{
		"key":      str("key is the label key that the selector applies to."),
		"operator": str("operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist."),
		"values":   atomicArr("values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.", S{"type": "string"}),
	}, "key", "operator")
}

func labelSelector(desc string) S {
	return with(obj(desc, S{
		"matchExpressions": atomicArr("matchExpressions is a list of label selector requirements. The requirements are ANDed.", labelSelectorRequirement()),
		"matchLabels":      strMap("matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is \"key\", the operator is \"In\", and the values array contains only \"value\". The requirements are ANDed."),
	}), "x-kubernetes-map-type", "atomic")
}

func nodeSelectorRequirement() S {
	return obj("A node selector requirement is a selector that contains values, a key, and an operator that relates the key and values.", S{
		"key":      str("The label key that the selector applies to."),
		"operator": str("Represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists, DoesNotExist. Gt, and Lt."),
		"values":   atomicArr("An array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. If the operator is Gt or Lt, the values array must have a single element, which will be interpreted as an integer. This array is replaced during a strategic merge patch.", S{"type": "string"}),
	}, "key", "operator")
}

func nodeSelectorTerm(desc string) S {
	return with(obj(desc, S{
		"matchExpressions": atomicArr("A list of node selector requirements by node's labels.", nodeSelectorRequirement()),
		"matchFields":      atomicArr("A list of node selector requirements by node's fields.", nodeSelectorRequirement()),
	}), "x-kubernetes-map-type", "atomic")
}

func podAffinityTerm(desc string) S {
	return obj(desc, S{
		"labelSelector":     labelSelector("A label query over a set of resources, in this case pods. If it's null, this PodAffinityTerm matches with no Pods."),
		"matchLabelKeys":    atomicArr("MatchLabelKeys is a set of pod label keys to select which pods will be taken into consideration. The keys are used to lookup values from the incoming pod labels, those key-value labels are merged with `labelSelector` as `key in (value)` to select the group of existing pods which pods will be taken into consideration for the incoming pod's pod (anti) affinity. Keys that don't exist in the incoming pod labels will be ignored. The default value is empty. The same key is forbidden to exist in both matchLabelKeys and labelSelector. Also, matchLabelKeys cannot be set when labelSelector isn't set.", S{"type": "string"}),
		"mismatchLabelKeys": atomicArr("MismatchLabelKeys is a set of pod label keys to select which pods will be taken into consideration. The keys are used to lookup values from the incoming pod labels, those key-value labels are merged with `labelSelector` as `key notin (value)` to select the group of existing pods which pods will be taken into consideration for the incoming pod's pod (anti) affinity. Keys that don't exist in the incoming pod labels will be ignored. The default value is empty. The same key is forbidden to exist in both mismatchLabelKeys and labelSelector. Also, mismatchLabelKeys cannot be set when labelSelector isn't set.", S{"type": "string"}),
		"namespaceSelector": labelSelector("A label query over the set of namespaces that the term applies to. The term is applied to the union of the namespaces selected by this field and the ones listed in the namespaces field. null selector and null or empty namespaces list means \"this pod's namespace\". An empty selector ({}) matches all namespaces."),
		"namespaces":        atomicArr("namespaces specifies a static list of namespace names that the term applies to. The term is applied to the union of the namespaces listed in this field and the ones selected by namespaceSelector. null or empty namespaces list and null namespaceSelector means \"this pod's namespace\".", S{"type": "string"}),
		"topologyKey":       str("This pod should be co-located (affinity) or not co-located (anti-affinity) with the pods matching the labelSelector in the specified namespaces, where co-located is defined as running on a node whose value of the label with key topologyKey matches that of any node on which any of the selected pods is running. Empty topologyKey is not allowed."),
	}, "topologyKey")
}

func weightedPodAffinityTerm() S {
	return obj("The weights of all of the matched WeightedPodAffinityTerm fields are added per-node to find the most preferred node(s)", S{
		"podAffinityTerm": podAffinityTerm("Required. A pod affinity term, associated with the corresponding weight."),
		"weight":          integer("weight associated with matching the corresponding podAffinityTerm, in the range 1-100.", "int32"),
	}, "podAffinityTerm", "weight")
}

func podAffinity(anti bool) S {
	what, verb := "affinity", "co-locate"
	if anti {
		what, verb = "anti-affinity", "avoid putting"
	}
	return obj(fmt.Sprintf("Describes pod %s scheduling rules (e.g. %s this pod in the same node, zone, etc. as some other pod(s)).", what, verb), S{
		"preferredDuringSchedulingIgnoredDuringExecution": atomicArr(fmt.Sprintf("The scheduler will prefer to schedule pods to nodes that satisfy the %s expressions specified by this field, but it may choose a node that violates one or more of the expressions. The node that is most preferred is the one with the greatest sum of weights, i.e. for each node that meets all of the scheduling requirements (resource request, requiredDuringScheduling %s expressions, etc.), compute a sum by iterating through the elements of this field and adding \"weight\" to the sum if the node has pods which matches the corresponding podAffinityTerm; the node(s) with the highest sum are the most preferred.", what, what), weightedPodAffinityTerm()),
		"requiredDuringSchedulingIgnoredDuringExecution": atomicArr(fmt.Sprintf("If the %s requirements specified by this field are not met at scheduling time, the pod will not be scheduled onto the node. If the %s requirements specified by this field cease to be met at some point during pod execution (e.g. due to a pod label update), the system may or may not try to eventually evict the pod from its node. When there are multiple elements, the lists of nodes corresponding to each podAffinityTerm are intersected, i.e. all terms must be satisfied.", what, what),
			podAffinityTerm("Defines a set of pods (namely those matching the labelSelector relative to the given namespace(s)) that this pod should be co-located (affinity) or not co-located (anti-affinity) with, where co-located is defined as running on a node whose value of the label with key <topologyKey> matches that of any node on which a pod of the set of pods is running")),
	})
}

func affinity() S {
	return obj("If specified, the pod's scheduling constraints", S{
		"nodeAffinity": obj("Describes node affinity scheduling rules for the pod.", S{
			"preferredDuringSchedulingIgnoredDuringExecution": atomicArr("The scheduler will prefer to schedule pods to nodes that satisfy the affinity expressions specified by this field, but it may choose a node that violates one or more of the expressions. The node that is most preferred is the one with the greatest sum of weights, i.e. for each node that meets all of the scheduling requirements (resource request, requiredDuringScheduling affinity expressions, etc.), compute a sum by iterating through the elements of this field and adding \"weight\" to the sum if the node matches the corresponding matchExpressions; the node(s) with the highest sum are the most preferred.",
				obj("An empty preferred scheduling term matches all objects with implicit weight 0 (i.e. it's a no-op). A null preferred scheduling term matches no objects (i.e. is also a no-op).", S{
					"preference": nodeSelectorTerm("A node selector term, associated with the corresponding weight."),
					"weight":     integer("Weight associated with matching the corresponding nodeSelectorTerm, in the range 1-100.", "int32"),
				}, "preference", "weight")),
			"requiredDuringSchedulingIgnoredDuringExecution": with(obj("If the affinity requirements specified by this field are not met at scheduling time, the pod will not be scheduled onto the node. If the affinity requirements specified by this field cease to be met at some point during pod execution (e.g. due to an update), the system may or may not try to eventually evict the pod from its node.", S{
				"nodeSelectorTerms": atomicArr("Required. A list of node selector terms. The terms are ORed.",
					nodeSelectorTerm("A null or empty node selector term matches no objects. The requirements of them are ANDed. The TopologySelectorTerm type implements a subset of the NodeSelectorTerm.")),
			}, "nodeSelectorTerms"), "x-kubernetes-map-type", "atomic"),
		}),
		"podAffinity":     podAffinity(false),
		"podAntiAffinity": podAffinity(true),
	})
}

func toleration() S {
	return obj("The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator <operator>.", S{
		"effect":            str("Effect indicates the taint effect to match. Empty means match all taint effects. When specified, allowed values are NoSchedule, PreferNoSchedule and NoExecute."),
		"key":               str("Key is the taint key that the toleration applies to. Empty means match all taint keys. If the key is empty, operator must be Exists; this combination means to match all values and all keys."),
		"operator":          str("Operator represents a key's relationship to the value. Valid operators are Exists and Equal. Defaults to Equal. Exists is equivalent to wildcard for value, so that a pod can tolerate all taints of a particular category."),
		"tolerationSeconds": integer("TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint. By default, it is not set, which means tolerate the taint forever (do not evict). Zero and negative values will be treated as 0 (evict immediately) by the system.", "int64"),
		"value":             str("Value is the taint value the toleration matches to. If the operator is Exists, the value should be empty, otherwise just a regular string."),
	})
}

func resources(desc string) S {
	return obj(desc, S{
		"claims": with(arr("Claims lists the names of resources, defined in spec.resourceClaims, that are used by this container. This is an alpha field and requires enabling the DynamicResourceAllocation feature gate. This field is immutable. It can only be set for containers.",
			obj("ResourceClaim references one entry in PodSpec.ResourceClaims.", S{
				"name":    str("Name must match the name of one entry in pod.spec.resourceClaims of the Pod where this field is used. It makes that resource available inside a container."),
				"request": str("Request is the name chosen for a request in the referenced claim. If empty, everything from the claim is made available, otherwise only the result of this request."),
			}, "name")), "x-kubernetes-list-map-keys", []string{"name"}, "x-kubernetes-list-type", "map"),
		"limits":   S{"type": "object", "description": "Limits describes the maximum amount of compute resources allowed. More info: https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/", "additionalProperties": quantity("")},
		"requests": S{"type": "object", "description": "Requests describes the minimum amount of compute resources required. If Requests is omitted for a container, it defaults to Limits if that is explicitly specified, otherwise to an implementation-defined value. Requests cannot exceed Limits. More info: https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/", "additionalProperties": quantity("")},
	})
}

func podSecurityContext() S {
	return obj("If specified, the pod's security context", S{
		"fsGroup":             integer("A special supplemental group that applies to all containers in a pod. Some volume types allow the Kubelet to change the ownership of that volume to be owned by the pod: 1. The owning GID will be the FSGroup 2. The setgid bit is set (new files created in the volume will be owned by FSGroup) 3. The permission bits are OR'd with rw-rw---- If unset, the Kubelet will not modify the ownership and permissions of any volume. Note that this field cannot be set when spec.os.name is windows.", "int64"),
		"fsGroupChangePolicy": str("fsGroupChangePolicy defines behavior of changing ownership and permission of the volume before being exposed inside Pod. This field will only apply to volume types which support fsGroup based ownership(and permissions). It will have no effect on ephemeral volume types such as: secret, configmaps and emptydir. Valid values are \"OnRootMismatch\" and \"Always\". If not specified, \"Always\" is used. Note that this field cannot be set when spec.os.name is windows."),
		"runAsGroup":          integer("The GID to run the entrypoint of the container process. Uses runtime default if unset. May also be set in SecurityContext. If set in both SecurityContext and PodSecurityContext, the value specified in SecurityContext takes precedence for that container. Note that this field cannot be set when spec.os.name is windows.", "int64"),
		"runAsNonRoot":        boolean("Indicates that the container must run as a non-root user. If true, the Kubelet will validate the image at runtime to ensure that it does not run as UID 0 (root) and fail to start the container if it does. If unset or false, no such validation will be performed. May also be set in SecurityContext. If set in both SecurityContext and PodSecurityContext, the value specified in SecurityContext takes precedence."),
		"runAsUser":           integer("The UID to run the entrypoint of the container process. Defaults to user specified in image metadata if unspecified. May also be set in SecurityContext. If set in both SecurityContext and PodSecurityContext, the value specified in SecurityContext takes precedence for that container. Note that this field cannot be set when spec.os.name is windows.", "int64"),
		"seLinuxOptions": obj("The SELinux context to be applied to all containers. If unspecified, the container runtime will allocate a random SELinux context for each container. May also be set in SecurityContext. If set in both SecurityContext and PodSecurityContext, the value specified in SecurityContext takes precedence for that container. Note that this field cannot be set when spec.os.name is windows.", S{
			"level": str("Level is SELinux level label that applies to the container."),
			"role":  str("Role is a SELinux role label that applies to the container."),
			"type":  str("Type is a SELinux type label that applies to the container."),
			"user":  str("User is a SELinux user label that applies to the container."),
		}),
		"seccompProfile": obj("The seccomp options to use by the containers in this pod. Note that this field cannot be set when spec.os.name is windows.", S{
			"localhostProfile": str("localhostProfile indicates a profile defined in a file on the node should be used. The profile must be preconfigured on the node to work. Must be a descending path, relative to the kubelet's configured seccomp profile location. Must be set if type is \"Localhost\". Must NOT be set for any other type."),
			"type":             str("type indicates which kind of seccomp profile will be applied. Valid options are: Localhost - a profile defined in a file on the node should be used. RuntimeDefault - the container runtime default profile should be used. Unconfined - no profile should be applied."),
		}, "type"),
		"supplementalGroups": atomicArr("A list of groups applied to the first process run in each container, in addition to the container's primary GID, the fsGroup (if specified), and group memberships defined in the container image for the uid of the container process. If unspecified, no additional groups are added to any container. Note that group memberships defined in the container image for the uid of the container process are still effective, even if they are not included in this list. Note that this field cannot be set when spec.os.name is windows.", S{"type": "integer", "format": "int64"}),
		"sysctls": atomicArr("Sysctls hold a list of namespaced sysctls used for the pod. Pods with unsupported sysctls (by the container runtime) might fail to launch. Note that this field cannot be set when spec.os.name is windows.", obj("Sysctl defines a kernel parameter to be set", S{
			"name":  str("Name of a property to set"),
			"value": str("Value of a property to set"),
		}, "name", "value")),
	})
}

func localObjectReference(desc string) S {
	return with(obj(desc, S{
		"name": with(str("Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"), "default", ""),
	}), "x-kubernetes-map-type", "atomic")
}

func secretKeySelector(desc string) S {
	return obj(desc, S{
		"key":  str("The key of the entry in the Secret resource's `data` field to be used. Some instances of this field may be defaulted, in others it may be required."),
		"name": str("Name of the resource being referred to. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"),
	}, "name")
}

func secretRef(desc string) S {
	return obj(desc, S{
		"name": str("Name of the resource being referred to. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"),
	}, "name")
}

func serviceAccountRef(desc string) S {
	return obj(desc, S{
		"audiences": strList("TokenAudiences is an optional list of extra audiences to include in the token passed to the issuer. The default token consisting of the issuer's namespace and name is always included."),
		"name":      str("Name of the ServiceAccount used to request a token."),
	}, "name")
}

func metadataTemplate(desc string) S {
	return obj(desc, S{
		"annotations": strMap("Annotations that should be added to the created resources."),
		"labels":      strMap("Labels that should be added to the created resources."),
	})
}

func podTemplate(solver string) S {
	return obj(fmt.Sprintf("Optional pod template used to configure the ACME challenge solver pods used for %s.", solver), S{
		"metadata": metadataTemplate("ObjectMeta overrides for the pod used to solve HTTP01 challenges. Only the 'labels' and 'annotations' fields may be set. If labels or annotations overlap with in-built values, the values here will override the in-built values."),
		"spec": obj("PodSpec defines overrides for the HTTP01 challenge solver pod. Check ACMEChallengeSolverHTTP01IngressPodSpec to find out currently supported fields. All other fields will be ignored.", S{
			"affinity":           affinity(),
			"imagePullSecrets":   arr("If specified, the pod's imagePullSecrets", localObjectReference("LocalObjectReference contains enough information to let you locate the referenced object inside the same namespace.")),
			"nodeSelector":       strMap("NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/"),
			"priorityClassName":  str("If specified, the pod's priorityClassName."),
			"resources":          resources("If specified, the pod's resource requirements. These values override the global resource configuration flags. Note that when only specifying resource limits, ensure they are greater than or equal to the corresponding global resource requests configured via controller flags (--acme-http01-solver-resource-request-cpu, --acme-http01-solver-resource-request-memory). Kubernetes will reject pod creation if limits are lower than requests, causing challenge failures."),
			"securityContext":    podSecurityContext(),
			"serviceAccountName": str("If specified, the pod's service account"),
			"tolerations":        arr("If specified, the pod's tolerations.", toleration()),
		}),
	})
}

func condition(kind string) S {
	return obj(fmt.Sprintf("%sCondition contains condition information for a %s.", kind, kind), S{
		"lastTransitionTime": strFmt("LastTransitionTime is the timestamp corresponding to the last status change of this condition.", "date-time"),
		"message":            str("Message is a human readable description of the details of the last transition, complementing reason."),
		"observedGeneration": integer(fmt.Sprintf("If set, this represents the .metadata.generation that the condition was set based upon. For instance, if .metadata.generation is currently 12, but the .status.condition[x].observedGeneration is 9, the condition is out of date with respect to the current state of the %s.", kind), "int64"),
		"reason":             str("Reason is a brief machine readable explanation for the condition's last transition."),
		"status":             enum("Status of the condition, one of (`True`, `False`, `Unknown`).", "True", "False", "Unknown"),
		"type":               str(fmt.Sprintf("Type of the condition, known values are (`Ready`, `Issuing`%s).", map[bool]string{true: ", `InvalidRequest`, `Approved`, `Denied`", false: ""}[kind == "CertificateRequest"])),
	}, "status", "type")
}

func conditions(kind string) S {
	return with(arr(fmt.Sprintf("List of status conditions to indicate the status of a %s. Known condition types are `Ready` and `Issuing`.", kind), condition(kind)),
		"x-kubernetes-list-map-keys", []string{"type"}, "x-kubernetes-list-type", "map")
}

func issuerRef() S {
	return obj("Reference to the issuer responsible for issuing the certificate. If the issuer is namespace-scoped, it must be in the same namespace as the Certificate. If the issuer is cluster-scoped, it can be used from any namespace.\n\nThe `name` field of the reference must always be specified.", S{
		"group": str("Group of the issuer being referred to."),
		"kind":  str("Kind of the issuer being referred to."),
		"name":  str("Name of the issuer being referred to."),
	}, "name")
}

var keyUsages = []string{"signing", "digital signature", "content commitment", "key encipherment", "key agreement", "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth", "client auth", "code signing", "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc"}

func usages() S {
	return arr("Requested key usages and extended key usages. These usages are used to set the `usages` field on the created CertificateRequest resources. If `encodeUsagesInRequest` is unset or set to `true`, the usages will additionally be encoded in the `request` field which contains the CSR blob.\n\nIf unset, defaults to `digital signature` and `key encipherment`.",
		enum("KeyUsage specifies valid usage contexts for keys. See: https://tools.ietf.org/html/rfc5280#section-4.2.1.3 https://tools.ietf.org/html/rfc5280#section-4.2.1.12", keyUsages...))
}

func nameList(desc string) S {
	return obj(desc, S{
		"dnsDomains":     strList("DNSDomains is a list of DNS domains that are permitted or excluded."),
		"emailAddresses": strList("EmailAddresses is a list of Email Addresses that are permitted or excluded."),
		"ipRanges":       strList("IPRanges is a list of IP Ranges that are permitted or excluded. This should be a valid CIDR notation."),
		"uriDomains":     strList("URIDomains is a list of URI domains that are permitted or excluded."),
	})
}

// --- Certificate -------------------------------------------------------------

func certificateSchema() S {
	spec := obj("Specification of the desired state of the Certificate resource. https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status", S{
		"additionalOutputFormats": arr("Defines extra output formats of the private key and signed certificate chain to be written to this Certificate's target Secret.",
			obj("CertificateAdditionalOutputFormat defines an additional output format of a Certificate resource. These contain supplementary data formats of the signed certificate chain and paired private key.", S{
				"type": enum("Type is the name of the format type that should be written to the Certificate's target Secret.", "DER", "CombinedPEM"),
			}, "type")),
		"commonName":            str("Requested common name X509 certificate subject attribute. More info: https://datatracker.ietf.org/doc/html/rfc5280#section-4.1.2.6 NOTE: TLS clients will ignore this value when any subject alternative name is set (see https://tools.ietf.org/html/rfc6125#section-6.4.4).\n\nShould have a length of 64 characters or fewer to avoid generating invalid CSRs. Cannot be set if the `literalSubject` field is set."),
		"dnsNames":              strList("Requested DNS subject alternative names."),
		"duration":              str("Requested 'duration' (i.e. lifetime) of the Certificate. Note that the issuer may choose to ignore the requested duration, just like any other requested attribute.\n\nIf unset, this defaults to 90 days. Minimum accepted duration is 1 hour. Value must be in units accepted by Go time.ParseDuration https://golang.org/pkg/time/#ParseDuration."),
		"emailAddresses":        strList("Requested email subject alternative names."),
		"encodeUsagesInRequest": boolean("Whether the KeyUsage and ExtKeyUsage extensions should be set in the encoded CSR.\n\nThis option defaults to true, and should only be disabled if the target issuer does not support CSRs with these X509 KeyUsage/ ExtKeyUsage extensions."),
		"ipAddresses":           strList("Requested IP address subject alternative names."),
		"isCA":                  boolean("Requested basic constraints isCA value. The isCA value is used to set the `isCA` field on the created CertificateRequest resources. Note that the issuer may choose to ignore the requested isCA value, just like any other requested attribute.\n\nIf true, this will automatically add the `cert sign` usage to the list of requested `usages`."),
		"issuerRef":             issuerRef(),
		"keystores": obj("Additional keystore output formats to be stored in the Certificate's Secret.", S{
			"jks": obj("JKS configures options for storing a JKS keystore in the `spec.secretName` Secret resource.", S{
				"alias":             str("Alias specifies the alias of the key in the keystore, required by the JKS format. If not provided, the default alias `certificate` will be used."),
				"create":            boolean("Create enables JKS keystore creation for the Certificate. If true, a file named `keystore.jks` will be created in the target Secret resource, encrypted using the password stored in `passwordSecretRef` or `password`. The keystore file will be updated immediately. If the issuer provided a CA certificate, a file named `truststore.jks` will also be created in the target Secret resource, encrypted using the password stored in `passwordSecretRef` containing the issuing Certificate Authority"),
				"password":          str("Password provides a literal password used to encrypt the JKS keystore. Mutually exclusive with passwordSecretRef. One of password or passwordSecretRef must provide a password with a non-zero length."),
				"passwordSecretRef": secretKeySelector("PasswordSecretRef is a reference to a non-empty key in a Secret resource containing the password used to encrypt the JKS keystore. Mutually exclusive with password. One of password or passwordSecretRef must provide a password with a non-zero length."),
			}, "create"),
			"pkcs12": obj("PKCS12 configures options for storing a PKCS12 keystore in the `spec.secretName` Secret resource.", S{
				"create":            boolean("Create enables PKCS12 keystore creation for the Certificate. If true, a file named `keystore.p12` will be created in the target Secret resource, encrypted using the password stored in `passwordSecretRef` or in `password`. The keystore file will be updated immediately. If the issuer provided a CA certificate, a file named `truststore.p12` will also be created in the target Secret resource, encrypted using the password stored in `passwordSecretRef` containing the issuing Certificate Authority"),
				"password":          str("Password provides a literal password used to encrypt the PKCS#12 keystore. Mutually exclusive with passwordSecretRef. One of password or passwordSecretRef must provide a password with a non-zero length."),
				"passwordSecretRef": secretKeySelector("PasswordSecretRef is a reference to a non-empty key in a Secret resource containing the password used to encrypt the PKCS#12 keystore. Mutually exclusive with password. One of password or passwordSecretRef must provide a password with a non-zero length."),
				"profile":           enum("Profile specifies the key and certificate encryption algorithms and the HMAC algorithm used to create the PKCS12 keystore. Default value is `LegacyRC2` for backward compatibility.\n\nIf provided, allowed values are: `LegacyRC2`: Deprecated. Not supported by default in OpenSSL 3 or Java 20. `LegacyDES`: Less secure algorithm. Use this option for maximal compatibility. `Modern2023`: Secure algorithm. Use this option in case you have to always use secure algorithms (eg. because of company policy). Please note that the security of the algorithm is not that important in reality, because the unencrypted certificate and private key are also stored in the Secret.", "LegacyRC2", "LegacyDES", "Modern2023"),
			}, "create"),
		}),
		"literalSubject": str("Requested X.509 certificate subject, represented using the LDAP \"String Representation of a Distinguished Name\" [1]. Important: the LDAP string format also specifies the order of the attributes in the subject, this is important when issuing certs for LDAP authentication. Example: `CN=foo,DC=corp,DC=example,DC=com` More info [1]: https://datatracker.ietf.org/doc/html/rfc4514 More info: https://github.com/cert-manager/cert-manager/issues/3203 More info: https://github.com/cert-manager/cert-manager/issues/4424\n\nCannot be set if the `subject` or `commonName` field is set."),
		"nameConstraints": obj("x.509 certificate NameConstraint extension which MUST NOT be used in a non-CA certificate. More Info: https://datatracker.ietf.org/doc/html/rfc5280#section-4.2.1.10\n\nThis is an Alpha Feature and is only enabled with the `--feature-gates=NameConstraints=true` option set on both the controller and webhook components.", S{
			"critical":  boolean("if true then the name constraints are marked critical."),
			"excluded":  nameList("Excluded contains the constraints which must be disallowed. Any name matching a restriction in the excluded field is invalid regardless of information appearing in the permitted"),
			"permitted": nameList("Permitted contains the constraints in which the names must be located."),
		}),
		"otherNames": arr("`otherNames` is an escape hatch for SAN that allows any type. We currently restrict the support to string like otherNames, cf RFC 5280 p 37 Any UTF8 String valued otherName can be passed with by setting the keys oid: x.x.x.x and UTF8Value: somevalue for `otherName`. Most commonly this would be UPN set with oid: 1.3.6.1.4.1.311.20.2.3 You should ensure that any OID passed is valid for the UTF8String type as we do not explicitly validate this.", obj("", S{
			"oid":       str("OID is the object identifier for the otherName SAN. The object identifier must be expressed as a dotted string, for example, \"1.2.840.113556.1.4.221\"."),
			"utf8Value": str("utf8Value is the string value of the otherName SAN. The utf8Value accepts any valid UTF8 string to set as value for the otherName SAN."),
		})),
		"privateKey": obj("Private key options. These include the key algorithm and size, the used encoding and the rotation policy.", S{
			"algorithm":      enum("Algorithm is the private key algorithm of the corresponding private key for this certificate.\n\nIf provided, allowed values are either `RSA`, `ECDSA` or `Ed25519`. If `algorithm` is specified and `size` is not provided, key size of 2048 will be used for `RSA` key algorithm and key size of 256 will be used for `ECDSA` key algorithm. key size is ignored when using the `Ed25519` key algorithm.", "RSA", "ECDSA", "Ed25519"),
			"encoding":       enum("The private key cryptography standards (PKCS) encoding for this certificate's private key to be encoded in.\n\nIf provided, allowed values are `PKCS1` and `PKCS8` standing for PKCS#1 and PKCS#8, respectively. Defaults to `PKCS1` if not specified.", "PKCS1", "PKCS8"),
			"rotationPolicy": enum("RotationPolicy controls how private keys should be regenerated when a re-issuance is being processed.\n\nIf set to `Never`, a private key will only be generated if one does not already exist in the target `spec.secretName`. If one does exist but it does not have the correct algorithm or size, a warning will be raised to await user intervention. If set to `Always`, a private key matching the specified requirements will be generated whenever a re-issuance occurs. Default is `Always`. The default was changed from `Never` to `Always` in certs.example.com v1.", "Never", "Always"),
			"size":           integer("Size is the key bit size of the corresponding private key for this certificate.\n\nIf `algorithm` is set to `RSA`, valid values are `2048`, `4096` or `8192`, and will default to `2048` if not specified. If `algorithm` is set to `ECDSA`, valid values are `256`, `384` or `521`, and will default to `256` if not specified. If `algorithm` is set to `Ed25519`, Size is ignored. No other values are allowed.", ""),
		}),
		"renewBefore":           str("How long before the currently issued certificate's expiry the operator should renew the certificate. For example, if a certificate is valid for 60 minutes, and `renewBefore=10m`, the operator will begin to attempt to renew the certificate 50 minutes after it was issued (i.e. when there are 10 minutes remaining until the certificate is no longer valid).\n\nNOTE: The actual lifetime of the issued certificate is used to determine the renewal time. If an issuer returns a certificate with a different lifetime than the one requested, the operator will use the lifetime of the issued certificate.\n\nIf unset, this defaults to 1/3 of the issued certificate's lifetime. Minimum accepted value is 5 minutes. Value must be in units accepted by Go time.ParseDuration https://golang.org/pkg/time/#ParseDuration. Cannot be set if the `renewBeforePercentage` field is set."),
		"renewBeforePercentage": integer("`renewBeforePercentage` is like `renewBefore`, except it is a relative percentage rather than an absolute duration. For example, if a certificate is valid for 60 minutes, and `renewBeforePercentage=25`, the operator will begin to attempt to renew the certificate 45 minutes after it was issued (i.e. when there are 15 minutes (25%) remaining until the certificate is no longer valid).\n\nValue must be an integer in the range (0,100). The minimum effective `renewBefore` derived from the `renewBeforePercentage` and `duration` fields is 5 minutes. Cannot be set if the `renewBefore` field is set.", "int32"),
		"revisionHistoryLimit":  integer("The maximum number of CertificateRequest revisions that are maintained in the Certificate's history. Each revision represents a single `CertificateRequest` created by this Certificate, either when it was created, renewed, or Spec was changed. Revisions will be removed by oldest first if the number of revisions exceeds this number.\n\nIf set, revisionHistoryLimit must be a value of `1` or greater. Default value is `1`.", "int32"),
		"secretName":            str("Name of the Secret resource that will be automatically created and managed by this Certificate resource. It will be populated with a private key and certificate, signed by the denoted issuer. The Secret resource lives in the same namespace as the Certificate resource."),
		"secretTemplate": obj("Defines annotations and labels to be copied to the Certificate's Secret. Labels and annotations on the Secret will be changed as they appear on the SecretTemplate when added or removed. SecretTemplate annotations are added in conjunction with, and cannot overwrite, the base set of annotations the operator sets on the Certificate's Secret.", S{
			"annotations": strMap("Annotations is a key value map to be copied to the target Kubernetes Secret."),
			"labels":      strMap("Labels is a key value map to be copied to the target Kubernetes Secret."),
		}),
		"signatureAlgorithm": enum("Signature algorithm to use. Allowed values for RSA keys: SHA256WithRSA, SHA384WithRSA, SHA512WithRSA. Allowed values for ECDSA keys: ECDSAWithSHA256, ECDSAWithSHA384, ECDSAWithSHA512. Allowed values for Ed25519 keys: PureEd25519.", "SHA256WithRSA", "SHA384WithRSA", "SHA512WithRSA", "ECDSAWithSHA256", "ECDSAWithSHA384", "ECDSAWithSHA512", "PureEd25519"),
		"subject": obj("Requested set of X509 certificate subject attributes. More info: https://datatracker.ietf.org/doc/html/rfc5280#section-4.1.2.6\n\nThe common name attribute is specified separately in the `commonName` field. Cannot be set if the `literalSubject` field is set.", S{
			"countries":           strList("Countries to be used on the Certificate."),
			"localities":          strList("Cities to be used on the Certificate."),
			"organizationalUnits": strList("Organizational Units to be used on the Certificate."),
			"organizations":       strList("Organizations to be used on the Certificate."),
			"postalCodes":         strList("Postal codes to be used on the Certificate."),
			"provinces":           strList("State/Provinces to be used on the Certificate."),
			"serialNumber":        str("Serial number to be used on the Certificate."),
			"streetAddresses":     strList("Street addresses to be used on the Certificate."),
		}),
		"uris":   strList("Requested URI subject alternative names."),
		"usages": usages(),
	}, "issuerRef", "secretName")
	status := obj("Status of the Certificate. This is set and managed automatically. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status", S{
		"conditions":               conditions("Certificate"),
		"failedIssuanceAttempts":   integer("The number of continuous failed issuance attempts up till now. This field gets removed (if set) on a successful issuance and gets set to 1 if unset and an issuance has failed. If an issuance has failed, the delay till the next issuance will be calculated using formula time.Hour * 2 ^ (failedIssuanceAttempts - 1).", ""),
		"lastFailureTime":          strFmt("LastFailureTime is set only if the latest issuance for this Certificate failed and contains the time of the failure. If an issuance has failed, the delay till the next issuance will be calculated using formula time.Hour * 2 ^ (failedIssuanceAttempts - 1). If the latest issuance has succeeded this field will be unset.", "date-time"),
		"nextPrivateKeySecretName": str("The name of the Secret resource containing the private key to be used for the next certificate iteration. The keymanager controller will automatically set this field if the `Issuing` condition is set to `True`. It will automatically unset this field when the Issuing condition is not set or False."),
		"notAfter":                 strFmt("The expiration time of the certificate stored in the secret named by this resource in `spec.secretName`.", "date-time"),
		"notBefore":                strFmt("The time after which the certificate stored in the secret named by this resource in `spec.secretName` is valid.", "date-time"),
		"renewalTime":              strFmt("RenewalTime is the time at which the certificate will be next renewed. If not set, no upcoming renewal is scheduled.", "date-time"),
		"revision":                 integer("The current 'revision' of the certificate as issued.\n\nWhen a CertificateRequest resource is created, it will have the `certs.example.com/certificate-revision` set to one greater than the current value of this field.\n\nUpon issuance, this field will be set to the value of the annotation on the CertificateRequest resource used to issue the certificate.\n\nPersisting the value on the CertificateRequest resource allows the operator to know whether a request is part of an old issuance or if it is part of the ongoing revision's issuance by checking if the revision value in the annotation is greater than this field.", ""),
	})
	return root("A Certificate resource should be created to ensure an up to date and signed X.509 certificate is stored in the Kubernetes Secret resource named in `spec.secretName`.\n\nThe stored certificate will be renewed before it expires (as configured by `spec.renewBefore`).", spec, status)
}

// --- CertificateRequest --------------------------------------------------------

func certificateRequestSchema() S {
	spec := obj("Specification of the desired state of the CertificateRequest resource. https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status", S{
		"duration":  str("Requested 'duration' (i.e. lifetime) of the Certificate. Note that the issuer may choose to ignore the requested duration, just like any other requested attribute."),
		"extra":     S{"type": "object", "description": "Extra contains extra attributes of the user that created the CertificateRequest. Populated by the operator webhook on creation and immutable.", "additionalProperties": S{"type": "array", "items": S{"type": "string"}}},
		"groups":    atomicArr("Groups contains group membership of the user that created the CertificateRequest. Populated by the operator webhook on creation and immutable.", S{"type": "string"}),
		"isCA":      boolean("Requested basic constraints isCA value. Note that the issuer may choose to ignore the requested isCA value, just like any other requested attribute.\n\nNOTE: If the CSR in the `Request` field has a BasicConstraints extension, it must have the same isCA value as specified here.\n\nIf true, this will automatically add the `cert sign` usage to the list of requested `usages`."),
		"issuerRef": issuerRef(),
		"request":   strFmt("The PEM-encoded X.509 certificate signing request to be submitted to the issuer for signing.\n\nIf the CSR has a BasicConstraints extension, its isCA attribute must match the `isCA` value of this CertificateRequest. If the CSR has a KeyUsage extension, its key usages must match the key usages in the `usages` field of this CertificateRequest. If the CSR has a ExtKeyUsage extension, its extended key usages must match the extended key usages in the `usages` field of this CertificateRequest.", "byte"),
		"uid":       str("UID contains the uid of the user that created the CertificateRequest. Populated by the operator webhook on creation and immutable."),
		"usages":    usages(),
		"username":  str("Username contains the name of the user that created the CertificateRequest. Populated by the operator webhook on creation and immutable."),
	}, "issuerRef", "request")
	status := obj("Status of the CertificateRequest. This is set and managed automatically. Read-only. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status", S{
		"ca":          strFmt("The PEM encoded X.509 certificate of the signer, also known as the CA (Certificate Authority). This is set on a best-effort basis by different issuers. If not set, the CA is assumed to be unknown/not available.", "byte"),
		"certificate": strFmt("The PEM encoded X.509 certificate resulting from the certificate signing request. If not set, the CertificateRequest has either not been completed or has failed. More information on failure can be found by checking the `conditions` field.", "byte"),
		"conditions":  conditions("CertificateRequest"),
		"failureTime": strFmt("FailureTime stores the time that this CertificateRequest failed. This is used to influence garbage collection and back-off.", "date-time"),
	})
	return root("A CertificateRequest is used to request a signed certificate from one of the configured issuers.\n\nAll fields within the CertificateRequest's `spec` are immutable after creation. A CertificateRequest will either succeed or fail, as denoted by its `Ready` status condition and its `status.failureTime` field.\n\nA CertificateRequest is a one-shot resource, meaning it represents a single point in time request for a certificate and cannot be re-used.", spec, status)
}

// --- Issuer / ClusterIssuer ----------------------------------------------------

func acmeIssuer() S {
	selector := obj("Selector selects a set of DNSNames on the Certificate resource that should be solved using this challenge solver. If not specified, the solver will be treated as the 'default' solver with the lowest priority, i.e. if any other solver has a more specific match, it will be used instead.", S{
		"dnsNames":    strList("List of DNSNames that this solver will be used to solve. If specified and a match is found, a dnsNames selector will take precedence over a dnsZones selector. If multiple solvers match with the same dnsNames value, the solver with the most matching labels in matchLabels will be selected. If neither has more matches, the solver defined earlier in the list will be selected."),
		"dnsZones":    strList("List of DNSZones that this solver will be used to solve. The most specific DNS zone match specified here will take precedence over other DNS zone matches, so a solver specifying sys.example.com will be selected over one specifying example.com for the domain www.sys.example.com. If multiple solvers match with the same dnsZones value, the solver with the most matching labels in matchLabels will be selected. If neither has more matches, the solver defined earlier in the list will be selected."),
		"matchLabels": strMap("A label selector that is used to refine the set of certificate's that this challenge solver will apply to."),
	})
	parentRef := obj("ParentReference identifies an API object (usually a Gateway) that can be considered a parent of this resource (usually a route).", S{
		"group":       with(str("Group is the group of the referent. When unspecified, \"gateway.networking.k8s.io\" is inferred. To set the core API group (such as for a \"Service\" kind referent), Group must be explicitly set to \"\" (empty string)."), "default", "gateway.networking.k8s.io", "maxLength", 253, "pattern", `^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`),
		"kind":        with(str("Kind is kind of the referent. There are two kinds of parent resources with \"Core\" support: Gateway (Gateway conformance profile) and Service (Mesh conformance profile, ClusterIP Services only)."), "default", "Gateway", "maxLength", 63, "minLength", 1, "pattern", `^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`),
		"name":        with(str("Name is the name of the referent."), "maxLength", 253, "minLength", 1),
		"namespace":   with(str("Namespace is the namespace of the referent. When unspecified, this refers to the local namespace of the Route."), "maxLength", 63, "minLength", 1, "pattern", `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`),
		"port":        with(integer("Port is the network port this Route targets. It can be interpreted differently based on the type of parent resource. When the parent resource is a Gateway, this targets all listeners listening on the specified port that also support this kind of Route (and select this Route).", "int32"), "maximum", 65535, "minimum", 1),
		"sectionName": with(str("SectionName is the name of a section within the target resource. In the following resources, SectionName is interpreted as the following: Gateway: Listener name. When both Port (experimental) and SectionName are specified, the name and port of the selected listener must match both specified values. Service: Port name. When both Port (experimental) and SectionName are specified, the name and port of the selected listener must match both specified values."), "maxLength", 253, "minLength", 1, "pattern", `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`),
	}, "name")
	http01 := obj("Configures cert-manager-style HTTP01 challenge solving. The HTTP01 challenge is supported by ACME servers and requires the DNS names of the certificate to resolve to the cluster's ingress.", S{
		"gatewayHTTPRoute": obj("The Gateway API is a sig-network community API that models service networking in Kubernetes (https://gateway-api.sigs.k8s.io/). The Gateway solver will create HTTPRoutes with the specified labels in the same namespace as the challenge. This solver is experimental, and fields / behaviour may change in the future.", S{
			"labels":      strMap("Custom labels that will be applied to HTTPRoutes created by the operator while solving HTTP-01 challenges."),
			"parentRefs":  arr("When solving an HTTP-01 challenge, the operator creates an HTTPRoute. It will use these parentRefs to define which gateways to use. See: https://gateway-api.sigs.k8s.io/api-types/httproute/#attaching-to-gateways", parentRef),
			"podTemplate": podTemplate("HTTP01 challenges through the Gateway API"),
			"serviceType": str("Optional service type for Kubernetes solver service. Supported values are NodePort or ClusterIP. If unset, defaults to NodePort."),
		}),
		"ingress": obj("The ingress based HTTP01 challenge solver will solve challenges by creating or modifying Ingress resources in order to route requests for '/.well-known/acme-challenge/XYZ' to 'challenge solver' pods that are provisioned by the operator for each Challenge to be completed.", S{
			"class":            str("This field configures the annotation `kubernetes.io/ingress.class` when creating Ingress resources to solve ACME challenges that use this challenge solver. Only one of `class`, `name` or `ingressClassName` may be specified."),
			"ingressClassName": str("This field configures the field `ingressClassName` on the created Ingress resources used to solve ACME challenges that use this challenge solver. This is the recommended way of configuring the ingress class. Only one of `class`, `name` or `ingressClassName` may be specified."),
			"ingressTemplate": obj("Optional ingress template used to configure the ACME challenge solver ingress used for HTTP01 challenges.", S{
				"metadata": metadataTemplate("ObjectMeta overrides for the ingress used to solve HTTP01 challenges. Only the 'labels' and 'annotations' fields may be set. If labels or annotations overlap with in-built values, the values here will override the in-built values."),
			}),
			"name":        str("The name of the ingress resource that should have ACME challenge solving routes inserted into it in order to solve HTTP01 challenges. This is typically used in conjunction with ingress controllers like ingress-gce, which maintains a 1:1 mapping between external IPs and ingress resources. Only one of `class`, `name` or `ingressClassName` may be specified."),
			"podTemplate": podTemplate("HTTP01 challenges through an Ingress"),
			"serviceType": str("Optional service type for Kubernetes solver service. Supported values are NodePort or ClusterIP. If unset, defaults to NodePort."),
		}),
	})
	dns01 := obj("Configures DNS01 challenge solving. The DNS01 challenge requires the solver to create a TXT record in the DNS zone of each domain name being validated.", S{
		"acmeDNS": obj("Use the 'ACME DNS' (https://github.com/joohoi/acme-dns) API to manage DNS01 challenge records.", S{
			"accountSecretRef": secretKeySelector("A reference to a specific 'key' within a Secret resource. In some instances, `key` is a required field."),
			"host":             str("Host is the base URL of the acme-dns server."),
		}, "accountSecretRef", "host"),
		"azureDNS": obj("Use the Microsoft Azure DNS API to manage DNS01 challenge records.", S{
			"clientID":              str("Auth: Azure Service Principal: The ClientID of the Azure Service Principal used to authenticate with Azure DNS. If set, ClientSecret and TenantID must also be set."),
			"clientSecretSecretRef": secretKeySelector("Auth: Azure Service Principal: A reference to a Secret containing the password associated with the Service Principal. If set, ClientID and TenantID must also be set."),
			"environment":           enum("name of the Azure environment (default AzurePublicCloud)", "AzurePublicCloud", "AzureChinaCloud", "AzureGermanCloud", "AzureUSGovernmentCloud"),
			"hostedZoneName":        str("name of the DNS zone that should be used"),
			"managedIdentity": obj("Auth: Azure Workload Identity or Azure Managed Service Identity: Settings to enable Azure Workload Identity or Azure Managed Service Identity If set, ClientID, ClientSecret and TenantID must not be set.", S{
				"clientID":   str("client ID of the managed identity, cannot be used at the same time as resourceID"),
				"resourceID": str("resource ID of the managed identity, cannot be used at the same time as clientID Cannot be used for Azure Managed Service Identity"),
				"tenantID":   str("tenant ID of the managed identity, cannot be used at the same time as resourceID"),
			}),
			"resourceGroupName": str("resource group the DNS zone is located in"),
			"subscriptionID":    str("ID of the Azure subscription"),
			"tenantID":          str("Auth: Azure Service Principal: The TenantID of the Azure Service Principal used to authenticate with Azure DNS. If set, ClientID and ClientSecret must also be set."),
		}, "resourceGroupName", "subscriptionID"),
		"cloudDNS": obj("Use the Google Cloud DNS API to manage DNS01 challenge records.", S{
			"hostedZoneName":          str("HostedZoneName is an optional field that tells the operator in which Cloud DNS zone the challenge record has to be created. If left empty the operator will automatically choose a zone."),
			"project":                 str("Project is the ID of the Google Cloud project that hosts the zone."),
			"serviceAccountSecretRef": secretKeySelector("A reference to a specific 'key' within a Secret resource. In some instances, `key` is a required field."),
		}, "project"),
		"cloudflare": obj("Use the Cloudflare API to manage DNS01 challenge records.", S{
			"apiKeySecretRef":   secretKeySelector("API key to use to authenticate with Cloudflare. Note: using an API token to authenticate is now the recommended method as it allows greater control of permissions."),
			"apiTokenSecretRef": secretKeySelector("API token used to authenticate with Cloudflare."),
			"email":             str("Email of the account, only required when using API key based authentication."),
		}),
		"cnameStrategy": enum("CNAMEStrategy configures how the DNS01 provider should handle CNAME records when found in DNS zones.", "None", "Follow"),
		"digitalocean": obj("Use the DigitalOcean DNS API to manage DNS01 challenge records.", S{
			"tokenSecretRef": secretKeySelector("A reference to a specific 'key' within a Secret resource. In some instances, `key` is a required field."),
		}, "tokenSecretRef"),
		"rfc2136": obj("Use RFC2136 (\"Dynamic Updates in the Domain Name System\") (https://datatracker.ietf.org/doc/rfc2136/) to manage DNS01 challenge records.", S{
			"nameserver":          str("The IP address or hostname of an authoritative DNS server supporting RFC2136 in the form host:port. If the host is an IPv6 address it must be enclosed in square brackets (e.g [2001:db8::1]) ; port is optional. This field is required."),
			"protocol":            enum("Protocol to use for dynamic DNS update queries. Valid values are (case-sensitive) ``TCP`` and ``UDP``; ``UDP`` (default).", "TCP", "UDP"),
			"tsigAlgorithm":       str("The TSIG Algorithm configured in the DNS supporting RFC2136. Used only when ``tsigSecretSecretRef`` and ``tsigKeyName`` are defined. Supported values are (case-insensitive): ``HMACMD5`` (default), ``HMACSHA1``, ``HMACSHA256`` or ``HMACSHA512``."),
			"tsigKeyName":         str("The TSIG Key name configured in the DNS. If ``tsigSecretSecretRef`` is defined, this field is required."),
			"tsigSecretSecretRef": secretKeySelector("The name of the secret containing the TSIG value. If ``tsigKeyName`` is defined, this field is required."),
		}, "nameserver"),
		"route53": obj("Use the AWS Route53 API to manage DNS01 challenge records.", S{
			"accessKeyID":          str("The AccessKeyID is used for authentication. Cannot be set when SecretAccessKeyID is set. If neither the Access Key nor Key ID are set, we fall-back to using env vars, shared credentials file or AWS Instance metadata, see: https://docs.aws.amazon.com/sdk-for-go/v1/developer-guide/configuring-sdk.html#specifying-credentials"),
			"accessKeyIDSecretRef": secretKeySelector("The SecretAccessKey is used for authentication. If set, pull the AWS access key ID from a key within a Kubernetes Secret. Cannot be set when AccessKeyID is set. If neither the Access Key nor Key ID are set, we fall-back to using env vars, shared credentials file or AWS Instance metadata, see: https://docs.aws.amazon.com/sdk-for-go/v1/developer-guide/configuring-sdk.html#specifying-credentials"),
			"auth": obj("Auth configures how the operator authenticates with AWS.", S{
				"kubernetes": obj("Kubernetes authenticates with Route53 using AssumeRoleWithWebIdentity by passing a bound ServiceAccount token.", S{
					"serviceAccountRef": serviceAccountRef("A reference to a service account that will be used to request a bound token (also known as \"projected token\"). To use this field, you must configure an RBAC rule to let the operator request a token."),
				}, "serviceAccountRef"),
			}, "kubernetes"),
			"hostedZoneID":             str("If set, the provider will manage only this zone in Route53 and will not do a lookup using the route53:ListHostedZonesByName api call."),
			"region":                   str("Override the AWS region.\n\nRoute53 is a global service and does not have regional endpoints but the region specified here (or via environment variables) is used as a hint to help compute the correct AWS credential scope and partition when it connects to Route53."),
			"role":                     str("Role is a Role ARN which the Route53 provider will assume using either the explicit credentials AccessKeyID/SecretAccessKey or the inferred credentials from environment variables, shared credentials file or AWS Instance metadata"),
			"secretAccessKeySecretRef": secretKeySelector("The SecretAccessKey is used for authentication. If neither the Access Key nor Key ID are set, we fall-back to using env vars, shared credentials file or AWS Instance metadata, see: https://docs.aws.amazon.com/sdk-for-go/v1/developer-guide/configuring-sdk.html#specifying-credentials"),
		}),
		"webhook": obj("Configure an external webhook based DNS01 challenge solver to manage DNS01 challenge records.", S{
			"config":     S{"description": "Additional configuration that should be passed to the webhook apiserver when challenges are processed. This can contain arbitrary JSON data. Secret values should not be specified in this stanza. If secret values are needed (e.g. credentials for a DNS service), you should use a SecretKeySelector to reference a Secret resource. For details on the schema of this field, consult the webhook provider implementation's documentation.", "x-kubernetes-preserve-unknown-fields": true},
			"groupName":  str("The API group name that should be used when POSTing ChallengePayload resources to the webhook apiserver. This should be the same as the GroupName specified in the webhook provider implementation."),
			"solverName": str("The name of the solver to use, as defined in the webhook provider implementation. This will typically be the name of the provider, e.g. 'cloudflare'."),
		}, "groupName", "solverName"),
	})
	solver := obj("An ACMEChallengeSolver describes how to solve ACME challenges for the issuer it is part of. A selector may be provided to use different solving strategies for different DNS names. Only one of HTTP01 or DNS01 must be provided.", S{
		"dns01":    dns01,
		"http01":   http01,
		"selector": selector,
	})
	return obj("ACME configures this issuer to communicate with a RFC8555 (ACME) server to obtain signed x509 certificates.", S{
		"caBundle":                    strFmt("Base64-encoded bundle of PEM CAs which can be used to validate the certificate chain presented by the ACME server. Mutually exclusive with SkipTLSVerify; prefer using CABundle to prevent various kinds of security vulnerabilities. If CABundle and SkipTLSVerify are unset, the system certificate bundle inside the container is used to validate the TLS connection.", "byte"),
		"disableAccountKeyGeneration": boolean("Enables or disables generating a new ACME account key. If true, the operator will not generate a new ACME account key and will use the existing key stored in privateKeySecretRef. Defaults to false."),
		"email":                       str("Email is the email address to be associated with the ACME account. This field is optional, but it is strongly recommended to be set. It will be used to contact you in case of issues with your account or certificates, including expiry notification emails. This field may be updated after the account is initially registered."),
		"enableDurationFeature":       boolean("Enables requesting a Not After date on certificates that matches the duration of the certificate. This is not supported by all ACME servers like Let's Encrypt. If set to true when the ACME server does not support it, it will create an error on the Order. Defaults to false."),
		"externalAccountBinding": obj("ExternalAccountBinding is a reference to a CA external account of the ACME server. If set, upon registration the operator will attempt to associate the given external account credentials with the registered ACME account.", S{
			"keyAlgorithm": enum("Deprecated: keyAlgorithm field exists for historical compatibility reasons and should not be used. The algorithm is now hardcoded to HS256 in golang/x/crypto/acme.", "HS256", "HS384", "HS512"),
			"keyID":        str("keyID is the ID of the CA key that the External Account is bound to."),
			"keySecretRef": secretKeySelector("keySecretRef is a Secret Key Selector referencing a data item in a Kubernetes Secret which holds the symmetric MAC key of the External Account Binding. The `key` is the index string that is paired with the key data in the Secret and should not be confused with the key data itself, or indeed with the External Account Binding keyID above. The secret key stored in the Secret **must** be un-padded, base64 URL encoded data."),
		}, "keyID", "keySecretRef"),
		"preferredChain":      with(str("PreferredChain is the chain to use if the ACME server outputs multiple. PreferredChain is no guarantee that this one gets delivered by the ACME endpoint. For example, for Let's Encrypt's DST cross-sign you would use: \"DST Root CA X3\" or \"ISRG Root X1\" for the newer Let's Encrypt root CA. This value picks the first certificate bundle in the combined set of ACME default and alternative chains that has a root-most certificate with this value as its issuer's commonname."), "maxLength", 64),
		"privateKeySecretRef": secretKeySelector("PrivateKey is the name of a Kubernetes Secret resource that will be used to store the automatically generated ACME account private key. Optionally, a `key` may be specified to select a specific entry within the named Secret resource. If `key` is not specified, a default of `tls.key` will be used."),
		"profile":             str("Profile allows requesting a certificate profile from the ACME server. Supported profiles are listed by the server's ACME directory URL."),
		"server":              str("Server is the URL used to access the ACME server's 'directory' endpoint. For example, for Let's Encrypt's staging endpoint, you would use: \"https://acme-staging-v02.api.letsencrypt.org/directory\". Only ACME v2 endpoints (i.e. RFC 8555) are supported."),
		"skipTLSVerify":       boolean("INSECURE: Enables or disables validation of the ACME server TLS certificate. If true, requests to the ACME server will not have the TLS certificate chain validated. Mutually exclusive with CABundle; prefer using CABundle to prevent various kinds of security vulnerabilities. Only enable this option in development environments. If CABundle and SkipTLSVerify are unset, the system certificate bundle inside the container is used to validate the TLS connection. Defaults to false."),
		"solvers":             arr("Solvers is a list of challenge solvers that will be used to solve ACME challenges for the matching domains. Solver configurations must be provided in order to obtain certificates from an ACME server. For more information, see: https://cert-manager.io/docs/configuration/acme/", solver),
	}, "privateKeySecretRef", "server")
}

func issuerSpec(kind string) S {
	crl := strList("The CRL distribution points is an X.509 v3 certificate extension which identifies the location of the CRL from which the revocation of this certificate can be checked. If not set, certificates will be issued without distribution points set.")
	return obj(fmt.Sprintf("Desired state of the %s resource.", kind), S{
		"acme": acmeIssuer(),
		"ca": obj("CA configures this issuer to sign certificates using a signing CA keypair stored in a Secret resource. This is used to build internal PKIs that are managed by the operator.", S{
			"crlDistributionPoints":  crl,
			"issuingCertificateURLs": strList("IssuingCertificateURLs is a list of URLs which this issuer should embed into certificates it creates. See https://www.rfc-editor.org/rfc/rfc5280#section-4.2.2.1 for more details. As an example, such a URL might be \"http://ca.domain.com/ca.crt\"."),
			"ocspServers":            strList("The OCSP server list is an X.509 v3 extension that defines a list of URLs of OCSP responders. The OCSP responders can be queried for the revocation status of an issued certificate. If not set, the certificate will be issued with no OCSP servers set. For example, an OCSP server URL could be \"http://ocsp.int-x3.letsencrypt.org\"."),
			"secretName":             str("SecretName is the name of the secret used to sign Certificates issued by this Issuer."),
		}, "secretName"),
		"selfSigned": obj("SelfSigned configures this issuer to 'self sign' certificates using the private key used to create the CertificateRequest object.", S{
			"crlDistributionPoints": crl,
		}),
		"vault": obj("Vault configures this issuer to sign certificates using a HashiCorp Vault PKI backend.", S{
			"auth": obj("Auth configures how the operator authenticates with the Vault server.", S{
				"appRole": obj("AppRole authenticates with Vault using the App Role auth mechanism, with the role and secret stored in a Kubernetes Secret resource.", S{
					"path":      str("Path where the App Role authentication backend is mounted in Vault, e.g: \"approle\""),
					"roleId":    str("RoleID configured in the App Role authentication backend when setting up the authentication backend in Vault."),
					"secretRef": secretKeySelector("Reference to a key in a Secret that contains the App Role secret used to authenticate with Vault. The `key` field must be specified and denotes which entry within the Secret resource is used as the app role secret."),
				}, "path", "roleId", "secretRef"),
				"clientCertificate": obj("ClientCertificate authenticates with Vault by presenting a client certificate during the request's TLS handshake. Works only when using HTTPS protocol.", S{
					"mountPath":  str("The Vault mountPath here is the mount path to use when authenticating with Vault. For example, setting a value to `/v1/auth/foo`, will use the path `/v1/auth/foo/login` to authenticate with Vault. If unspecified, the default value \"/v1/auth/cert\" will be used."),
					"name":       str("Name of the certificate role to authenticate against. If not set, matching any certificate role, if available."),
					"secretName": str("Reference to Kubernetes Secret of type \"kubernetes.io/tls\" (hence containing tls.crt and tls.key) used to authenticate to Vault using TLS client authentication."),
				}),
				"kubernetes": obj("Kubernetes authenticates with Vault by passing the ServiceAccount token stored in the named Secret resource to the Vault server.", S{
					"mountPath":         str("The Vault mountPath here is the mount path to use when authenticating with Vault. For example, setting a value to `/v1/auth/foo`, will use the path `/v1/auth/foo/login` to authenticate with Vault. If unspecified, the default value \"/v1/auth/kubernetes\" will be used."),
					"role":              str("A required field containing the Vault Role to assume. A Role binds a Kubernetes ServiceAccount with a set of Vault policies."),
					"secretRef":         secretKeySelector("The required Secret field containing a Kubernetes ServiceAccount JWT used for authenticating with Vault. Use of 'ambient credentials' is not supported."),
					"serviceAccountRef": serviceAccountRef("A reference to a service account that will be used to request a bound token (also known as \"projected token\"). Compared to using \"secretRef\", using this field means that you don't rely on statically bound tokens. To use this field, you must configure an RBAC rule to let the operator request a token."),
				}, "role"),
				"tokenSecretRef": secretKeySelector("TokenSecretRef authenticates with Vault by presenting a token."),
			}),
			"caBundle":            strFmt("Base64-encoded bundle of PEM CAs which will be used to validate the certificate chain presented by Vault. Only used if using HTTPS to connect to Vault and ignored for HTTP connections. Mutually exclusive with CABundleSecretRef. If neither CABundle nor CABundleSecretRef are defined, the certificate bundle in the operator's container is used to validate the TLS connection.", "byte"),
			"caBundleSecretRef":   secretKeySelector("Reference to a Secret containing a bundle of PEM-encoded CAs to use when verifying the certificate chain presented by Vault when using HTTPS. Mutually exclusive with CABundle. If neither CABundle nor CABundleSecretRef are defined, the certificate bundle in the operator's container is used to validate the TLS connection. If no key for the Secret is specified, the operator will default to 'ca.crt'."),
			"clientCertSecretRef": secretKeySelector("Reference to a Secret containing a PEM-encoded Client Certificate to use when the Vault server requires mTLS."),
			"clientKeySecretRef":  secretKeySelector("Reference to a Secret containing a PEM-encoded Client Private Key to use when the Vault server requires mTLS."),
			"namespace":           str("Name of the vault namespace. Namespaces is a set of features within Vault Enterprise that allows Vault environments to support Secure Multi-tenancy. e.g: \"ns1\" More about namespaces can be found here https://www.vaultproject.io/docs/enterprise/namespaces"),
			"path":                str("Path is the mount path of the Vault PKI backend's `sign` endpoint, e.g: \"my_pki_mount/sign/my-role-name\"."),
			"server":              str("Server is the connection address for the Vault server, e.g: \"https://vault.example.com:8200\"."),
			"serverName":          str("ServerName is used to verify the hostname on the returned certificates by the Vault server."),
		}, "auth", "path", "server"),
	})
}

func issuerSchema(kind string) S {
	status := obj(fmt.Sprintf("Status of the %s. This is set and managed automatically.", kind), S{
		"acme": obj("ACME specific status options. This field should only be set if the Issuer is configured to use an ACME server to issue certificates.", S{
			"lastPrivateKeyHash":  str("LastPrivateKeyHash is a hash of the private key associated with the latest registered ACME account, in order to track changes made to registered account associated with the Issuer"),
			"lastRegisteredEmail": str("LastRegisteredEmail is the email associated with the latest registered ACME account, in order to track changes made to registered account associated with the  Issuer"),
			"uri":                 str("URI is the unique account identifier, which can also be used to retrieve account details from the CA"),
		}),
		"conditions": conditions(kind),
	})
	desc := "An Issuer represents a certificate issuing authority which can be referenced as part of `issuerRef` fields. It is scoped to a single namespace and can therefore only be referenced by resources within the same namespace."
	if kind == "ClusterIssuer" {
		desc = "A ClusterIssuer represents a certificate issuing authority which can be referenced as part of `issuerRef` fields. It is similar to an Issuer, however it is cluster-scoped and therefore can be referenced by resources that exist in *any* namespace, not just the same namespace as the referent."
	}
	return root(desc, issuerSpec(kind), status)
}

func root(desc string, spec, status S) S {
	return obj(desc, S{
		"apiVersion": str("APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"),
		"kind":       str("Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"),
		"metadata":   S{"type": "object"},
		"spec":       spec,
		"status":     status,
	}, "spec")
}

// --- CRDs ----------------------------------------------------------------------

type crd struct {
	kind, plural, singular, scope string
	shortNames                    []string
	schema                        S
	columns                       []S
	versions                      []string // first is the storage version
}

func col(name, typ, path, desc string, priority int) S {
	c := S{"name": name, "type": typ, "jsonPath": path}
	if desc != "" {
		c["description"] = desc
	}
	if priority > 0 {
		c["priority"] = priority
	}
	return c
}

func readyCols() []S {
	return []S{
		col("Ready", "string", `.status.conditions[?(@.type == "Ready")].status`, "", 0),
		col("Status", "string", `.status.conditions[?(@.type == "Ready")].message`, "", 1),
		col("Age", "date", ".metadata.creationTimestamp", "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.", 0),
	}
}

func (c crd) object() S {
	var versions []any
	for i, v := range c.versions {
		ver := S{
			"name":                     v,
			"served":                   true,
			"storage":                  i == 0,
			"schema":                   S{"openAPIV3Schema": c.schema},
			"subresources":             S{"status": S{}},
			"additionalPrinterColumns": c.columns,
		}
		if i > 0 {
			ver["deprecated"] = true
			ver["deprecationWarning"] = fmt.Sprintf("%s/%s %s is deprecated; use %s/%s %s", group, v, c.kind, group, c.versions[0], c.kind)
		}
		versions = append(versions, ver)
	}
	names := S{
		"kind":       c.kind,
		"listKind":   c.kind + "List",
		"plural":     c.plural,
		"singular":   c.singular,
		"categories": []string{"certs-operator"},
	}
	if len(c.shortNames) > 0 {
		names["shortNames"] = c.shortNames
	}
	annotations := S{"controller-gen.kubebuilder.io/version": "v0.16.5"}
	spec := S{
		"group":    group,
		"names":    names,
		"scope":    c.scope,
		"versions": versions,
	}
	if len(c.versions) > 1 {
		// The cert-operator webhook converts between the served versions;
		// cert-manager's CA injector fills in the conversion caBundle from
		// the webhook's Certificate.
		annotations["cert-manager.io/inject-ca-from"] = "cert-operator-system/cert-operator-webhook"
		spec["conversion"] = S{
			"strategy": "Webhook",
			"webhook": S{
				"conversionReviewVersions": []string{"v1"},
				"clientConfig": S{"service": S{
					"name":      "cert-operator-webhook",
					"namespace": "cert-operator-system",
					"path":      "/convert",
					"port":      443,
				}},
			},
		}
	}
	return S{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata": S{
			"name":        c.plural + "." + group,
			"annotations": annotations,
			"labels": S{
				"app.kubernetes.io/name":    "cert-operator",
				"app.kubernetes.io/part-of": "cert-operator",
			},
		},
		"spec": spec,
	}
}

func main() {
	out := "crds"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	crds := []crd{
		{kind: "Certificate", plural: "certificates", singular: "certificate", scope: "Namespaced", shortNames: []string{"cert", "certs"},
			schema: certificateSchema(), versions: []string{"v1", "v1beta1"},
			columns: append([]S{
				col("Secret", "string", ".spec.secretName", "", 0),
				col("Issuer", "string", ".spec.issuerRef.name", "", 1),
				col("Expires", "date", ".status.notAfter", "", 1),
			}, readyCols()...)},
		{kind: "CertificateRequest", plural: "certificaterequests", singular: "certificaterequest", scope: "Namespaced", shortNames: []string{"cr", "crs"},
			schema: certificateRequestSchema(), versions: []string{"v1"},
			columns: append([]S{
				col("Approved", "string", `.status.conditions[?(@.type == "Approved")].status`, "", 0),
				col("Denied", "string", `.status.conditions[?(@.type == "Denied")].status`, "", 0),
				col("Issuer", "string", ".spec.issuerRef.name", "", 0),
				col("Requester", "string", ".spec.username", "", 0),
			}, readyCols()...)},
		{kind: "Issuer", plural: "issuers", singular: "issuer", scope: "Namespaced",
			schema: issuerSchema("Issuer"), versions: []string{"v1"}, columns: readyCols()},
		{kind: "ClusterIssuer", plural: "clusterissuers", singular: "clusterissuer", scope: "Cluster", shortNames: []string{"ciss"},
			schema: issuerSchema("ClusterIssuer"), versions: []string{"v1"}, columns: readyCols()},
	}
	for _, c := range crds {
		data, err := yaml.Marshal(c.object())
		if err != nil {
			panic(err)
		}
		name := filepath.Join(out, group+"_"+c.plural+".yaml")
		header := "# Generated by hack/gen-crds.go; DO NOT EDIT.\n---\n"
		if err := os.WriteFile(name, []byte(header+string(data)), 0o644); err != nil {
			panic(err)
		}
		fmt.Printf("%s\t%d bytes\n", name, len(header)+len(data))
	}
}
