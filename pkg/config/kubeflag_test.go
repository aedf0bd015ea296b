package config

import (
	"errors"
	"strings"
	"testing"
)

func TestKubeVersionFlag(t *testing.T) {
	if v, err := KubeVersionFlag(""); err != nil || !v.IsZero() {
		t.Fatalf("none: %v %v", v, err)
	}
	if v, err := KubeVersionFlag("v1.30.2-eks-1"); err != nil || v.Major() != 1 || v.Minor() != 30 {
		t.Fatalf("v1.30.2-eks-1: %v %v", v, err)
	}
	if _, err := KubeVersionFlag("1.30"); !errors.Is(err, ErrKubeVersion) || !strings.HasPrefix(err.Error(), "--kube-version: ") {
		t.Fatalf("1.30: %v, want ErrKubeVersion naming the flag", err)
	}
}
