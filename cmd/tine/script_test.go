package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tinehq/tine/porcelain/runs/runstest"
)

// TestMain lets the test binary double as the tine command: testscript
// copies it into $PATH as "tine", and running it by that name calls run.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"tine": main,
	})
}

// TestScripts runs every testdata/script/*.txtar session: each reads like
// a user's terminal session, errors included.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams("script", map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"capture":             cmdCapture,
		"corrupt":             cmdCorrupt,
		"corrupt-history":     cmdCorruptHistory,
		"damage-pack-indexes": cmdDamagePackIndexes,
		"fixture":             cmdFixture,
		"lose":                cmdLose,
	}))
}

// scriptParams are the parameters of every session directory under
// testdata (script, script-serve, script-s3): the same clean environment
// and the `exits` command, plus the directory's own commands.
func scriptParams(dir string, cmds map[string]func(ts *testscript.TestScript, neg bool, args []string)) testscript.Params {
	cmds["exits"] = cmdExits
	return testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", dir),
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// A user's environment must not leak into the sessions.
			env.Setenv("TINE_DIR", "")
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: cmds,
	}
}

// cmdExits is the script command `exits CODE PROGRAM [ARGS...]`: it runs
// the program like exec and requires exactly that exit status, so a
// session can tell a refusal (1) from a usage error (2).
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("exits does not support !")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad status %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

// cmdCapture is the script command `capture NAME REGEXP`: it sets the
// environment variable NAME to the first submatch of REGEXP (multi-line
// mode) in the previous command's stdout, so a session can name an object
// whose oid depends on the clock (a recorded event) in later commands and
// in exact stderr patterns.
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("capture does not support !")
	}
	if len(args) != 2 {
		ts.Fatalf("usage: capture NAME REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	if err != nil {
		ts.Fatalf("capture: %v", err)
	}
	if re.NumSubexp() < 1 {
		ts.Fatalf("capture: %q has no (group)", args[1])
	}
	m := re.FindStringSubmatch(ts.ReadFile("stdout"))
	if m == nil {
		ts.Fatalf("capture: no match for %q in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// cmdCorruptHistory is the script command `corrupt-history`: it flips a
// bit in the header of a layer of the history index.
func cmdCorruptHistory(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: corrupt-history")
	}
	layers, err := filepath.Glob(ts.MkAbs(filepath.Join(".tine", "objects", "catalog", "history", "*.layer")))
	ts.Check(err)
	if len(layers) == 0 {
		ts.Fatalf("corrupt-history: no layer")
	}
	b, err := os.ReadFile(layers[0])
	ts.Check(err)
	b[14] ^= 0x01 // in the hash name: the whole-file checksum fails
	ts.Check(os.Chmod(layers[0], 0o644))
	ts.Check(os.WriteFile(layers[0], b, 0o644))
}

// cmdCorrupt is the script command `corrupt OID`: it damages the loose
// object file of OID (TYPE:ALGO:HEX, stored read-only at
// .tine/objects/TYPE/HEX[:2]/HEX[2:] under the working directory; when
// only a storage pack holds the object, an append's, its loose copy is
// written first, which reads find before any pack) by
// flipping the case of its last ASCII letter. The bytes still parse, so
// what a reader must catch is the hash mismatch, as with silent bit rot.
func cmdCorrupt(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("corrupt does not support !")
	}
	if len(args) != 1 {
		ts.Fatalf("usage: corrupt OID")
	}
	parts := strings.Split(args[0], ":")
	if len(parts) != 3 || len(parts[2]) < 3 {
		ts.Fatalf("corrupt: %q is not TYPE:ALGO:HEX", args[0])
	}
	hex := parts[2]
	path := ts.MkAbs(filepath.Join(".tine", "objects", parts[0], hex[:2], hex[2:]))
	if _, err := os.Stat(path); err != nil {
		ts.Check(runstest.LooseOnly(ts.MkAbs(".tine"), args[0]))
	}
	fi, err := os.Stat(path)
	ts.Check(err)
	b, err := os.ReadFile(path)
	ts.Check(err)
	i := len(b) - 1
	for i >= 0 && !(b[i] >= 'a' && b[i] <= 'z' || b[i] >= 'A' && b[i] <= 'Z') {
		i--
	}
	if i < 0 {
		ts.Fatalf("corrupt: %s holds no letter to flip", path)
	}
	b[i] ^= 0x20 // ASCII case bit
	// Objects are stored read-only: make the file writable for the damage
	// and restore its mode, so only the bytes differ.
	ts.Check(os.Chmod(path, fi.Mode().Perm()|0o200))
	ts.Check(os.WriteFile(path, b, 0o200))
	ts.Check(os.Chmod(path, fi.Mode().Perm()))
}
