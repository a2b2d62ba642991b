package archtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// moduleRoot walks up from the test's directory to the go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

func listModule(t *testing.T) []Package {
	t.Helper()
	pkgs, err := List(moduleRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list reported no packages")
	}
	return pkgs
}

// TestImportTable enforces ARCHITECTURE.md §3 on the real module.
func TestImportTable(t *testing.T) {
	for _, v := range CheckImports(Table, listModule(t)) {
		t.Error(v)
	}
}

// TestOnlyCommandsPrint enforces "only cmd/tine touches stdout, stderr or
// os.Exit" on every non-test file outside cmd/.
func TestOnlyCommandsPrint(t *testing.T) {
	bad, err := CheckOutput(listModule(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range bad {
		t.Error(v)
	}
}

func pkg(path string, imports ...string) Package {
	full := Module + "/" + path
	var imps []string
	for _, i := range imports {
		if strings.Contains(i, ".") {
			imps = append(imps, i) // stdlib-looking or external paths stay as given
		} else {
			imps = append(imps, Module+"/"+i)
		}
	}
	return Package{ImportPath: full, Imports: imps}
}

// TestCheckImportsCatchesViolations proves the checker can fail: each case is
// a fabricated module with exactly one broken rule.
func TestCheckImportsCatchesViolations(t *testing.T) {
	cases := []struct {
		name string
		pkgs []Package
		want string // substring of the single expected violation; "" = clean
	}{
		{"clean", []Package{pkg("objects"), pkg("refs", "objects"), pkg("plumbing", "objects", "refs", "internal/fsutil"), pkg("internal/fsutil")}, ""},
		{"objects imports refs", []Package{pkg("objects", "refs"), pkg("refs", "objects")}, "objects imports " + Module + "/refs"},
		{"refs imports plumbing", []Package{pkg("refs", "plumbing"), pkg("plumbing")}, "refs imports"},
		{"cmd/tine imports objects", []Package{pkg("cmd/tine", "objects", "plumbing"), pkg("objects"), pkg("plumbing")}, "cmd/tine imports " + Module + "/objects"},
		{"gate imports refs", []Package{pkg("gate", "refs"), pkg("refs")}, "gate imports"},
		{"subpackage inherits its layer", []Package{pkg("objects/objectstest", "plumbing"), pkg("plumbing")}, "objects/objectstest imports"},
		{"unknown package", []Package{pkg("widgets")}, "not in the import table"},
		{"test import", []Package{{ImportPath: Module + "/refs", XTestImports: []string{Module + "/porcelain/runs"}}, pkg("porcelain/runs")}, "refs imports " + Module + "/porcelain/runs"},
		{"runs imports gates", []Package{pkg("porcelain/runs", "porcelain/gates"), pkg("porcelain/gates")}, "porcelain/runs imports " + Module + "/porcelain/gates"},
		{"trust imports loops", []Package{pkg("porcelain/trust", "porcelain/loops"), pkg("porcelain/loops")}, "porcelain/trust imports"},
		{"gates imports demo", []Package{pkg("porcelain/gates", "porcelain/demo"), pkg("porcelain/demo")}, "porcelain/gates imports"},
		{"gates imports trust", []Package{pkg("porcelain/gates", "porcelain/trust", "porcelain/runs"), pkg("porcelain/trust", "porcelain/runs"), pkg("porcelain/runs")}, ""},
		{"the old porcelain root is no room", []Package{pkg("porcelain")}, "not in the import table"},
		{"laundered through internal", []Package{
			pkg("objects", "internal/helper"),
			{ImportPath: Module + "/internal/helper", Imports: []string{Module + "/refs"}, Deps: []string{Module + "/refs"}},
			pkg("refs"),
		}, "depends on " + Module + "/refs"},
		{"tine-conformance is not cmd/tine", []Package{pkg("cmd/tine-conformance", "objects"), pkg("objects")}, ""},
		{"objects imports a store", []Package{pkg("objects", "objects/loose"), pkg("objects/loose", "objects")}, "objects imports " + Module + "/objects/loose"},
		{"pack imports loose", []Package{pkg("objects/pack", "objects", "objects/loose"), pkg("objects/loose", "objects"), pkg("objects")}, "objects/pack imports " + Module + "/objects/loose"},
		{"stores import the format, layers above the stores", []Package{
			pkg("objects"), pkg("objects/loose", "objects"), pkg("objects/pack", "objects"),
			pkg("objects/combined", "objects", "objects/loose", "objects/pack"),
			pkg("refs", "objects", "objects/memory"), pkg("objects/memory", "objects"),
			pkg("plumbing", "objects", "objects/combined"),
		}, ""},
		{"laundered store through internal", []Package{
			pkg("refs", "internal/helper"),
			{ImportPath: Module + "/internal/helper", Imports: []string{Module + "/objects/loose"}, Deps: []string{Module + "/objects/loose", Module + "/objects"}},
			pkg("objects/loose", "objects"), pkg("objects"),
		}, ""},
		{"external imports are free", []Package{pkg("objects", "golang.org/x/sys/unix")}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := CheckImports(Table, tc.pkgs)
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("want no violations, got %q", got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("want one violation containing %q, got %q", tc.want, got)
			}
		})
	}
}

// TestScanFileCatchesOutput proves the output scan can fail, including
// through a renamed import, and ignores look-alikes.
func TestScanFileCatchesOutput(t *testing.T) {
	src := `package x

import (
	"fmt"
	stdos "os"
	"log"
)

type T struct{ Stdout int }

func f(t T) int {
	fmt.Println("a")
	stdos.Exit(1)
	_ = stdos.Stderr
	log.Fatalf("x")
	println("y")
	fmt.Sprintf("fine")
	return t.Stdout
}
`
	got, err := ScanFile("x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"line 12 uses fmt.Println",
		"line 13 uses os.Exit",
		"line 14 uses os.Stderr",
		"line 15 uses log.Fatalf",
		"line 16 calls builtin println",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
