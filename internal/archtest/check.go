package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Package is the part of `go list -json` output the checks read.
type Package struct {
	ImportPath   string
	Name         string
	Dir          string
	GoFiles      []string
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
}

// List runs `go list -json ./...` in dir (the module root) and decodes every
// package it reports.
func List(dir string) ([]Package, error) {
	cmd := exec.Command("go", "list", "-e", "-json", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p Package
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decoding go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// CheckImports returns one sentence per import that breaks the table: direct
// imports (production and test) must be allowed for the importer's layer, and
// an internal helper may not drag in a layer the importer could not reach.
func CheckImports(table []Layer, pkgs []Package) []string {
	byPath := make(map[string]Package, len(pkgs))
	for _, p := range pkgs {
		byPath[p.ImportPath] = p
	}
	var bad []string
	for _, p := range pkgs {
		r, ok := rel(p.ImportPath)
		if !ok || isInternal(r) {
			continue
		}
		l, ok := layerOf(table, r)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is not in the import table (ARCHITECTURE.md §3): add a row or move it", p.ImportPath))
			continue
		}
		direct := map[string]bool{}
		for _, list := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
			for _, imp := range list {
				direct[imp] = true
			}
		}
		for imp := range direct {
			t, ok := rel(imp)
			if !ok || t == r {
				continue
			}
			if !allowed(table, l, t) {
				bad = append(bad, fmt.Sprintf("%s imports %s: layer %s may import only %v", p.ImportPath, imp, l.Prefix, l.MayImport))
			}
		}
		reach := reachable(table, l)
		for _, imp := range p.Imports {
			t, ok := rel(imp)
			if !ok || !isInternal(t) {
				continue
			}
			for _, dep := range append(append([]string(nil), byPath[imp].Imports...), byPath[imp].Deps...) {
				d, ok := rel(dep)
				if !ok || isInternal(d) {
					continue
				}
				dl, ok := layerOf(table, d)
				if !ok || !reach[dl.Prefix] {
					bad = append(bad, fmt.Sprintf("%s imports %s, which depends on %s: out of reach for layer %s", p.ImportPath, imp, dep, l.Prefix))
				}
			}
		}
	}
	sort.Strings(bad)
	return dedupe(bad)
}

// forbidden lists the package-level identifiers that write to the process's
// standard streams or end it; only command binaries may use them.
var forbidden = map[string]map[string]bool{
	"os":  {"Stdout": true, "Stderr": true, "Exit": true},
	"fmt": {"Print": true, "Printf": true, "Println": true},
	"log": {"Print": true, "Printf": true, "Println": true, "Fatal": true, "Fatalf": true,
		"Fatalln": true, "Panic": true, "Panicf": true, "Panicln": true},
}

// CheckOutput returns one sentence per use of a forbidden identifier in the
// non-test files of packages outside commandDirs (ARCHITECTURE.md §3: only
// cmd/tine touches stdout, stderr or os.Exit; the adapter and the benchmark
// helpers are binaries too).
func CheckOutput(pkgs []Package) ([]string, error) {
	var bad []string
	for _, p := range pkgs {
		r, ok := rel(p.ImportPath)
		if !ok || slices.ContainsFunc(commandDirs, func(d string) bool { return under(r, d) }) {
			continue
		}
		for _, name := range p.GoFiles {
			path := filepath.Join(p.Dir, name)
			found, err := ScanFile(path, nil)
			if err != nil {
				return nil, err
			}
			for _, f := range found {
				bad = append(bad, fmt.Sprintf("%s/%s: %s", r, name, f))
			}
		}
	}
	sort.Strings(bad)
	return bad, nil
}

// ScanFile parses one Go file (from src when non-nil, else from path) and
// returns "line N uses pkg.Name" for every forbidden identifier and every call
// of the print/println builtins.
func ScanFile(path string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	var source any
	if src != nil {
		source = src
	}
	f, err := parser.ParseFile(fset, path, source, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	local := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		ip, err := strconv.Unquote(imp.Path.Value)
		if err != nil || forbidden[ip] == nil {
			continue
		}
		name := ip
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = ip
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			id, ok := x.X.(*ast.Ident)
			if !ok {
				return true
			}
			if ip, ok := local[id.Name]; ok && forbidden[ip][x.Sel.Name] {
				found = append(found, fmt.Sprintf("line %d uses %s.%s", fset.Position(x.Pos()).Line, ip, x.Sel.Name))
			}
		case *ast.CallExpr:
			if id, ok := x.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") {
				found = append(found, fmt.Sprintf("line %d calls builtin %s", fset.Position(x.Pos()).Line, id.Name))
			}
		}
		return true
	})
	return found, nil
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
