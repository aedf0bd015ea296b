package testregistry

import (
	"fmt"
	"strconv"
	"strings"
)

// byteRange is a resolved, satisfiable range of a representation.
type byteRange struct {
	start, length int64
}

func (b byteRange) contentRange(size int64) string {
	return fmt.Sprintf("bytes %d-%d/%d", b.start, b.start+b.length-1, size)
}

// parseRange interprets a Range header for a representation of size bytes
// following RFC 7233:
//
//   - a unit other than "bytes", or several ranges, is ignored (ok=false,
//     satisfiable=true): the caller sends the whole representation;
//   - "N-M", "N-" and "-N" (suffix) resolve to one range, clamped to the end;
//   - a malformed range, a first byte beyond the end, or a zero suffix is
//     unsatisfiable (satisfiable=false): the caller answers 416.
func parseRange(header string, size int64) (br byteRange, ok, satisfiable bool) {
	unit, spec, found := strings.Cut(strings.TrimSpace(header), "=")
	if !found || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		return byteRange{}, false, true
	}
	if strings.Contains(spec, ",") {
		return byteRange{}, false, true
	}
	first, last, found := strings.Cut(strings.TrimSpace(spec), "-")
	if !found {
		return byteRange{}, false, false
	}
	first, last = strings.TrimSpace(first), strings.TrimSpace(last)
	if first == "" {
		// suffix range: the last N bytes
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n <= 0 || size == 0 {
			return byteRange{}, false, false
		}
		n = min(n, size)
		return byteRange{start: size - n, length: n}, true, true
	}
	start, err := strconv.ParseInt(first, 10, 64)
	if err != nil || start < 0 || start >= size {
		return byteRange{}, false, false
	}
	end := size - 1
	if last != "" {
		e, err := strconv.ParseInt(last, 10, 64)
		if err != nil || e < start {
			return byteRange{}, false, false
		}
		end = min(e, size-1)
	}
	return byteRange{start: start, length: end - start + 1}, true, true
}
