package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/tinehq/tine/porcelain/runs/runstest"
)

// cmdLose is the script command `lose OID`: it deletes the only copy of
// OID (TYPE:ALGO:HEX), as a disk or a careless rm would: a storage pack
// holding it is first written out as loose files (runstest.LooseOnly),
// then the object's loose file is removed. No shallow file is touched, so
// the repository is damaged, not shallow.
func cmdLose(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lose OID")
	}
	parts := strings.Split(args[0], ":")
	if len(parts) != 3 || len(parts[2]) < 3 {
		ts.Fatalf("lose: %q is not TYPE:ALGO:HEX", args[0])
	}
	hex := parts[2]
	path := ts.MkAbs(filepath.Join(".tine", "objects", parts[0], hex[:2], hex[2:]))
	if _, err := os.Stat(path); err != nil {
		ts.Check(runstest.LooseOnly(ts.MkAbs(".tine"), args[0]))
	}
	ts.Check(os.Remove(path))
}

// cmdDamagePackIndexes is the script command `damage-pack-indexes`: it
// overwrites four bytes of the fan-out table of every storage pack index,
// so no pack can be searched (each is skipped and named by a read that
// misses, pack.Store.Damaged).
func cmdDamagePackIndexes(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: damage-pack-indexes")
	}
	idxs, err := filepath.Glob(ts.MkAbs(filepath.Join(".tine", "objects", "pack", "*.idx")))
	ts.Check(err)
	if len(idxs) == 0 {
		ts.Fatalf("damage-pack-indexes: no pack index")
	}
	for _, p := range idxs {
		b, err := os.ReadFile(p)
		ts.Check(err)
		if len(b) < 44 {
			ts.Fatalf("damage-pack-indexes: %s is too short", p)
		}
		copy(b[40:44], "XXXX")
		ts.Check(os.Chmod(p, 0o644))
		ts.Check(os.WriteFile(p, b, 0o644))
	}
}
