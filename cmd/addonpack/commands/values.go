package commands

import (
	"fmt"
	"io"
	"os"
)

// readValues reads a --values file ("-" is standard input); "" means none.
func (g *globals) readValues(path string) ([]byte, string, error) {
	switch path {
	case "":
		return nil, "", nil
	case "-":
		data, err := io.ReadAll(io.LimitReader(g.streams.In, 1<<20+1))
		if err != nil {
			return nil, "", err
		}
		if len(data) > 1<<20 {
			return nil, "", usageError{fmt.Errorf("--values -: more than 1 MiB")}
		}
		return data, "<stdin>", nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("--values: %w", err)
	}
	return data, path, nil
}
