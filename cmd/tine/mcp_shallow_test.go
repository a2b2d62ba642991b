package main

import (
	"context"
	"path/filepath"
	"testing"
)

// TestMCPContextShallow walks the context tool past the shallow boundary
// of a clone: the ancestors a shallow fetch left out are listed missing,
// not refused (a revision naming them is ErrBeyondShallow, not an unknown
// revision, and the tool must take either for the miss it is).
func TestMCPContextShallow(t *testing.T) {
	hub := mcpRepo(t)
	clone := filepath.Join(t.TempDir(), "clone")
	if code, _, errs := tineRun(t, "", "clone", hub, clone, "--depth", "1"); code != 0 {
		t.Fatalf("clone --depth 1: %d %s", code, errs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), mcpTimeout)
	defer cancel()
	cs, _ := mcpSession(t, ctx, clone)
	defer cs.Close()
	c, _ := mcpCall(t, ctx, cs, true, "context", map[string]any{"event": "heads/main", "depth": 3})
	evs := c["events"].([]any)
	if len(evs) != 2 {
		t.Fatalf("context of heads/main in a depth-1 clone: %d events, want the tip and its missing parent: %v", len(evs), c)
	}
	tip, parent := evs[0].(map[string]any), evs[1].(map[string]any)
	if tip["missing"] == true || parent["missing"] != true || parent["depth"].(float64) != 1 {
		t.Errorf("context: tip %v, parent %v; want the parent missing at depth 1", tip, parent)
	}
}
