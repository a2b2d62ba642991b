package archtest

import "strings"

// Module is the import path of the tine module; every path in the table is
// relative to it.
const Module = "github.com/tinehq/tine"

// Layer is one row of the import table: the packages under Prefix (the
// directory itself and everything below it that has no row of its own) may
// import the tine packages of the layers named in MayImport (and of the rows
// below those), their own layer, and internal/... helpers.
type Layer struct {
	Prefix    string
	MayImport []string
}

// Table is ARCHITECTURE.md §3 as data. A package that matches no row (other
// than internal/...) is a violation: adding a package means adding a row.
var Table = []Layer{
	// The format code (ids, canonical JSON, envelope, payload rules,
	// TINEPACK3, signatures) and the Store contract import none of the
	// stores; the stores import the format code.
	{Prefix: "objects"},
	{Prefix: "objects/loose", MayImport: []string{"objects"}},
	{Prefix: "objects/pack", MayImport: []string{"objects"}},
	{Prefix: "objects/memory", MayImport: []string{"objects"}},
	{Prefix: "objects/combined", MayImport: []string{"objects", "objects/loose", "objects/pack"}},
	{Prefix: "refs", MayImport: []string{"objects"}},
	{Prefix: "index", MayImport: []string{"objects", "refs"}},
	{Prefix: "plumbing", MayImport: []string{"objects", "refs", "index"}},
	{Prefix: "gate", MayImport: []string{"objects"}},
	// The improvement-loop engine and its built-in steps: pure logic, no
	// storage (loopforge); porcelain/loops records what it hands its Recorder.
	{Prefix: "loop", MayImport: []string{"objects"}},
	// The workflows, one room each, in a fixed order: runs at the bottom;
	// trust and loops build on runs; gates build on runs and trust (gate
	// attestations are signed like promotions); compare (the runs table and
	// search) reads runs and trust's policy; demo sits on all of them.
	// No room imports one above it, so e.g. runs can never import gates.
	{Prefix: "porcelain/runs", MayImport: []string{"objects", "refs", "index", "plumbing"}},
	{Prefix: "porcelain/trust", MayImport: []string{"objects", "refs", "index", "plumbing", "gate", "porcelain/runs"}},
	{Prefix: "porcelain/loops", MayImport: []string{"objects", "refs", "plumbing", "loop", "porcelain/runs"}},
	{Prefix: "porcelain/gates", MayImport: []string{"objects", "refs", "index", "plumbing", "gate", "porcelain/runs", "porcelain/trust"}},
	{Prefix: "porcelain/compare", MayImport: []string{"objects", "refs", "index", "plumbing", "porcelain/runs", "porcelain/trust"}},
	// The agent room (tine mcp): MCP tools over the workflows below it,
	// the same functions the CLI verbs call.
	{Prefix: "porcelain/agents", MayImport: []string{"objects", "refs", "index", "plumbing", "porcelain/runs", "porcelain/trust", "porcelain/loops", "porcelain/gates", "porcelain/compare"}},
	{Prefix: "porcelain/demo", MayImport: []string{"objects", "refs", "plumbing", "porcelain/runs", "porcelain/trust", "porcelain/loops", "porcelain/gates"}},
	// The pictures of run graphs (tine graph, tine view) read runs, their
	// attestations and promotions and the runs table; the view's browser
	// tests load the demo.
	{Prefix: "porcelain/view", MayImport: []string{"objects", "refs", "index", "plumbing", "porcelain/runs", "porcelain/trust", "porcelain/compare", "porcelain/demo"}},
	// The remotes room: fetch/push/pull/clone workflows over package
	// remote's transports; it applies trust's release policy to
	// promotions/* on the side that owns the policy.
	{Prefix: "porcelain/remotes", MayImport: []string{"objects", "refs", "index", "plumbing", "remote", "porcelain/runs", "porcelain/trust"}},
	// Transports behind one interface (file, OpenTine HTTP, S3) and the
	// shared transport test suite; below porcelain, beside it in cmd/tine.
	{Prefix: "remote", MayImport: []string{"objects", "refs", "index", "plumbing"}},
	// The S3 transport (and its versitygw test harness): a client of a
	// bucket, registered with remote; it walks with plumbing's transfer
	// closure and packs with objects/pack.
	{Prefix: "remote/s3remote", MayImport: []string{"objects", "refs", "plumbing", "remote"}},
	{Prefix: "cmd/tine", MayImport: []string{"porcelain/runs", "porcelain/trust", "porcelain/loops", "porcelain/gates", "porcelain/compare", "porcelain/demo", "porcelain/agents", "porcelain/view", "porcelain/remotes", "remote", "plumbing"}},
	// The conformance adapter binary drives the library the way OpenTine's
	// suite expects (SPEC §4); it sits beside cmd/tine, below porcelain.
	{Prefix: "cmd/tine-conformance", MayImport: []string{"objects", "refs", "index", "plumbing", "gate"}},
	// The benchmark harness's helper binaries (bench/run.sh): tools beside
	// the product, built on the library like any user of it.
	{Prefix: "bench", MayImport: []string{"objects", "refs", "plumbing", "porcelain/runs"}},
}

// commandDirs are the module-relative directories whose packages are
// binaries and may print and exit: the product's commands and the
// benchmark harness's helpers.
var commandDirs = []string{"cmd", "bench"}

// rel strips the module prefix; ok is false for packages outside the module.
func rel(importPath string) (string, bool) {
	if importPath == Module {
		return "", true
	}
	r, ok := strings.CutPrefix(importPath, Module+"/")
	return r, ok
}

// isInternal reports whether a module-relative path is an internal helper,
// which every layer may import.
func isInternal(r string) bool {
	return r == "internal" || strings.HasPrefix(r, "internal/")
}

// under reports whether module-relative path r is prefix or below it.
func under(r, prefix string) bool {
	return r == prefix || strings.HasPrefix(r, prefix+"/")
}

// layerOf returns the table row for module-relative path r, preferring the
// longest prefix so "cmd/tine-conformance" is not taken for "cmd/tine".
func layerOf(table []Layer, r string) (Layer, bool) {
	var best Layer
	found := false
	for _, l := range table {
		if under(r, l.Prefix) && (!found || len(l.Prefix) > len(best.Prefix)) {
			best, found = l, true
		}
	}
	return best, found
}

// allowed reports whether layer l may import the package at module-relative
// path target directly. A layer that may import "objects" may import the
// rows below it (objects/loose ...) too, unless it is one of them: a row's
// own layer is its exact prefix, so "objects" may not import its stores.
func allowed(table []Layer, l Layer, target string) bool {
	if isInternal(target) {
		return true
	}
	tl, ok := layerOf(table, target)
	if !ok {
		return false
	}
	if tl.Prefix == l.Prefix {
		return true
	}
	for _, p := range l.MayImport {
		if tl.Prefix == p || below(l, tl.Prefix, p) {
			return true
		}
	}
	return false
}

// below reports whether a layer that may import prefix p may import the row
// at prefix r under p as well: yes from outside p's tree, no from a row
// inside it (objects/pack may import objects but not objects/loose).
func below(l Layer, r, p string) bool {
	return under(r, p) && !under(l.Prefix, p)
}

// reachable is every layer l may reach through its allowed imports (with
// the rows below a reachable layer), used to judge what an internal helper
// drags in on l's behalf.
func reachable(table []Layer, l Layer) map[string]bool {
	seen := map[string]bool{l.Prefix: true}
	stack := append([]string(nil), l.MayImport...)
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[p] {
			continue
		}
		seen[p] = true
		for _, row := range table {
			switch {
			case row.Prefix == p:
				stack = append(stack, row.MayImport...)
			case below(l, row.Prefix, p):
				stack = append(append(stack, row.Prefix), row.MayImport...)
			}
		}
	}
	return seen
}
