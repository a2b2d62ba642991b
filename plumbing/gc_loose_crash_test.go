package plumbing

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// TestGCWriteBackCrashKill SIGKILLs gc while it writes the storage packs
// of a sha256 repository without the opt-in back out as loose files (the
// packs an older tine left): each round adds packs of a few hundred
// objects, starts a child running gc (or gc --prune=now) over and over
// (TestGCCrashChild), kills it at a random moment, and requires every
// object to read back through a fresh handle and fsck to be clean. A last
// gc in-process must then leave every object loose and no pack.
func TestGCWriteBackCrashKill(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test re-executes the test binary")
	}
	if os.Getenv(gcCrashEnv) != "" || os.Getenv(crashEnv) != "" {
		t.Skip("in child mode")
	}
	const rounds = 12
	rng := rand.New(rand.NewSource(20261201))
	r := newRepo(t, objects.SHA256)
	defer r.Close()
	var ids []objects.OID
	for round := range rounds {
		for i := range 3 {
			ids = append(ids, storeChain(t, r, fmt.Sprintf("heads/r%d-%d", round, i), true, 100+rng.Intn(100))...)
		}
		mode := []string{"gc", "prune"}[round%2]
		delay := time.Duration(rng.Intn(1500)) * time.Millisecond
		gcCrashRound(t, r.Root(), mode, delay)
		mustReadAll(t, r.Root(), ids)
		fr, err := Open(r.Root())
		if err != nil {
			t.Fatal(err)
		}
		res := mustFsckClean(t, fr)
		t.Logf("round %d (%s, killed after %v): %d objects, %d packs left", round, mode, delay, res.Objects, len(packNames(t, fr)))
		fr.Close()
	}
	if _, err := GC(context.Background(), r, GCOptions{}); err != nil {
		t.Fatal(err)
	}
	allLoose(t, r, len(ids))
	mustFsckClean(t, r)
}
