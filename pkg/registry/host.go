package registry

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// CanonicalHost returns the one spelling of a registry host ("host[:port]")
// that every policy scope lookup, cache key and comparison sees, so that
// two spellings of one registry cannot be told apart by what they match:
//
//   - host names are lower-cased, without a trailing "." (an absolute DNS
//     name is the same name);
//   - IPv6 addresses are bracketed and in their compressed lower-case form
//     ("[0:0::1]" is "[::1]"); zones are refused;
//   - ports are decimal without leading zeros ("localhost:05000" is
//     "localhost:5000"), between 1 and 65535;
//   - ":443" is dropped for registries that are not on loopback: addonpack
//     reaches those over HTTPS, whose port it is (loopback registries are
//     probed for their scheme, so their ports are kept as written; ":80" is
//     kept everywhere, since plain HTTP is a choice made elsewhere);
//   - "index.docker.io" and "registry-1.docker.io" are "docker.io", which
//     is where oras-go sends "docker.io" requests.
//
// Errors wrap ErrInvalidReference.
func CanonicalHost(host string) (string, error) {
	h, err := canonicalHost(host)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidReference, err)
	}
	return h, nil
}

func canonicalHost(host string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("registry %q: %s", host, why)
	}
	var name, port string
	hasPort := false
	if rest, ok := strings.CutPrefix(host, "["); ok {
		addr, after, ok := strings.Cut(rest, "]")
		if !ok {
			return bad("unclosed [")
		}
		ip, err := netip.ParseAddr(addr)
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return bad("not an IPv6 address in brackets")
		}
		name = "[" + ip.String() + "]"
		if after != "" {
			if port, hasPort = strings.CutPrefix(after, ":"); !hasPort {
				return bad("text after the IPv6 address")
			}
		}
	} else {
		name = host
		if i := strings.LastIndexByte(host, ':'); i >= 0 {
			name, port, hasPort = host[:i], host[i+1:], true
		}
		name = strings.TrimSuffix(strings.ToLower(name), ".")
		if strings.Contains(name, ":") {
			return bad("an IPv6 address must be in brackets")
		}
		if name == "" {
			return bad("no host")
		}
	}
	if hasPort {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || !isPort(port) || n == 0 {
			return bad("port must be a number from 1 to 65535")
		}
		port = strconv.FormatUint(n, 10)
		if port == "443" && !IsLoopback(name) {
			hasPort = false
		}
	}
	switch name {
	case "index.docker.io", "registry-1.docker.io":
		name = "docker.io"
	}
	if hasPort {
		return name + ":" + port, nil
	}
	return name, nil
}
