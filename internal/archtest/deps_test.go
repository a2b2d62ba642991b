package archtest

import (
	"strings"
	"testing"
)

// TestBinaryLeavesOutTestOnlyDeps: the tine binary links none of
// TestOnlyDeps (the MCP SDK and what it brings serve tests only).
func TestBinaryLeavesOutTestOnlyDeps(t *testing.T) {
	for _, v := range CheckBinaryDeps(listModule(t), "github.com/tinehq/tine/cmd/tine", TestOnlyDeps) {
		t.Error(v)
	}
}

// TestCheckBinaryDepsCatchesViolations runs the check on a fabricated
// binary that links the SDK and gob, and on a name that is no package.
func TestCheckBinaryDepsCatchesViolations(t *testing.T) {
	bin := Package{ImportPath: "example.com/m/cmd/x", Deps: []string{"encoding/json", "encoding/gob", "github.com/modelcontextprotocol/go-sdk/mcp", "github.com/segmentio-fork/y"}}
	got := CheckBinaryDeps([]Package{bin}, bin.ImportPath, TestOnlyDeps)
	if len(got) != 2 || !strings.Contains(got[0], "encoding/gob") || !strings.Contains(got[1], "go-sdk/mcp") {
		t.Errorf("violations %q, want encoding/gob and the SDK", got)
	}
	if got := CheckBinaryDeps(nil, "example.com/none", TestOnlyDeps); len(got) != 1 {
		t.Errorf("missing binary: %q", got)
	}
}
