package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestStaticBuild holds the README to its word: the documented build
// (CGO_ENABLED=0) yields one statically linked binary. kong imports
// os/user, which links libc through cgo when cgo is enabled, so a plain
// `go build` on a machine with a C compiler is dynamic; the README says so.
func TestStaticBuild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the ELF check applies to linux builds")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "tine")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatal("binary has a program interpreter: it is dynamically linked")
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) != 0 {
		t.Fatalf("binary needs shared libraries %v", libs)
	}
}
