package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestGateScripts runs the gate sessions, testdata/script/gate/*.txtar,
// over the sample Go project (testdata/gate/sample). They run real go vet
// and go test, so the sessions share the toolchain's build cache (a fresh
// cache per session would rebuild the standard library each time) and get
// the sample's path as $SAMPLE; no network is used (GOPROXY=off).
func TestGateScripts(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	out, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil {
		t.Skipf("go env GOCACHE: %v", err)
	}
	cache := strings.TrimSpace(string(out))
	sample, err := filepath.Abs(filepath.Join("..", "..", "testdata", "gate", "sample"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "script", "gate"),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("TINE_DIR", "")
			env.Setenv("NO_COLOR", "1")
			env.Setenv("SAMPLE", sample)
			env.Setenv("GOCACHE", cache)
			env.Setenv("GOPATH", filepath.Join(env.WorkDir, ".gopath"))
			env.Setenv("GOFLAGS", "-mod=mod")
			env.Setenv("GOPROXY", "off")
			env.Setenv("GOTOOLCHAIN", "local")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":    cmdExits,
			"capture":  cmdCapture,
			"cpsample": cmdCpSample,
		},
	})
}

// cmdCpSample is the script command `cpsample`: it copies the sample
// project ($SAMPLE) into the working directory.
func cmdCpSample(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: cpsample")
	}
	src := ts.Getenv("SAMPLE")
	entries, err := os.ReadDir(src)
	ts.Check(err)
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(e.Name()), b, 0o644))
	}
}
