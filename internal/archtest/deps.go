package archtest

import (
	"fmt"
	"strings"
)

// TestOnlyDeps are packages (import path prefixes) the tine binary must
// not link: every tine process pays the package initialisation of what it
// links, and these serve only tests. The MCP SDK is the client that drives
// tine mcp's tests; jsonschema-go, encoding/gob and segmentio come with it.
var TestOnlyDeps = []string{
	"github.com/modelcontextprotocol/",
	"github.com/google/jsonschema-go/",
	"encoding/gob",
	"github.com/segmentio/",
}

// CheckBinaryDeps returns one sentence per package of banned (prefixes of
// import paths, or whole paths) that binary, a main package of pkgs, links.
func CheckBinaryDeps(pkgs []Package, binary string, banned []string) []string {
	var out []string
	for _, p := range pkgs {
		if p.ImportPath != binary {
			continue
		}
		for _, d := range p.Deps {
			for _, b := range banned {
				if d == strings.TrimSuffix(b, "/") || strings.HasPrefix(d, b) {
					out = append(out, fmt.Sprintf("%s links %s, which only tests may use (TestOnlyDeps)", binary, d))
				}
			}
		}
		return out
	}
	return []string{fmt.Sprintf("%s: no such package", binary)}
}
