package loose_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
)

// The crash test re-runs this test binary as a writer process selected by
// these variables, and kills it at random moments.
const (
	crashDirEnv  = "TINE_TEST_LOOSE_CRASH_DIR"
	crashSeedEnv = "TINE_TEST_LOOSE_CRASH_SEED"
)

// TestLooseCrashChild is the writer of TestLooseCrash: it stores objects in
// a loop, by single puts, batches and streams, until it is killed. It gives
// up by itself after a while so a dead parent leaves no runaway process.
func TestLooseCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("runs only as the child process of TestLooseCrash")
	}
	seed, err := strconv.ParseUint(os.Getenv(crashSeedEnv), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	s, err := loose.Open(dir, objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 7))
	stop := time.Now().Add(10 * time.Second)
	for i := 0; time.Now().Before(stop); i++ {
		// Half the objects repeat across rounds, so puts over objects a killed
		// writer left (complete or not) are exercised too.
		key := fmt.Sprintf("%d-%d", seed, i)
		if rng.IntN(2) == 0 {
			key = strconv.Itoa(rng.IntN(200))
		}
		switch i % 3 {
		case 0:
			err = s.Put(ctx, objects.NewBlob(objects.BLAKE3, crashPayload(key, 1+rng.IntN(4096))))
		case 1:
			batch := make([]*objects.Object, 8)
			for j := range batch {
				batch[j] = objects.NewBlob(objects.BLAKE3, crashPayload(fmt.Sprint(key, "/", j), 1+rng.IntN(2048)))
			}
			err = s.PutBatch(ctx, batch)
		case 2:
			_, err = s.PutBlobFrom(ctx, bytes.NewReader(crashPayload(key, 64<<10+rng.IntN(128<<10))))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// crashPayload returns n deterministic bytes derived from key.
func crashPayload(key string, n int) []byte {
	return []byte(strings.Repeat(key+"\n", n/(len(key)+1)+1)[:n])
}

func TestLooseCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns and kills writer processes")
	}
	if os.Getenv(crashDirEnv) != "" {
		t.Skip("already the child")
	}
	dir := filepath.Join(t.TempDir(), "objects")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := loose.Open(dir, objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2024, 11))
	const rounds = 30
	budget := time.Now().Add(15 * time.Second)
	prev := 0
	for round := 0; round < rounds && time.Now().Before(budget); round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLooseCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir, crashSeedEnv+"="+strconv.Itoa(round))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(30+rng.IntN(150)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil || strings.Contains(out.String(), "FAIL") {
			// The child only ends by being killed; anything else is its failure.
			t.Fatalf("round %d: writer ended on its own (%v):\n%s", round, err, out.String())
		}
		n := verifyStore(t, s)
		t.Logf("round %d: %d objects verified", round, n)
		if n < prev {
			t.Fatalf("round %d: %d objects, fewer than the %d before", round, n, prev)
		}
		prev = n
	}
	if prev == 0 {
		t.Fatal("the writers never stored an object")
	}
	// Every object can be stored again over what the crashes left.
	ctx := t.Context()
	var ids []objects.OID
	if err := s.List(ctx, func(id objects.OID) error { ids = append(ids, id); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		o, err := s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Put(ctx, o); err != nil {
			t.Fatalf("re-put %s: %v", id, err)
		}
	}
	if _, err := s.RemoveStaleTemp(ctx, farFuture); err != nil {
		t.Fatal(err)
	}
	assertNoTemp(t, s)
	if n := verifyStore(t, s); n != len(ids) {
		t.Fatalf("after cleanup %d objects, want %d", n, len(ids))
	}
}

// verifyStore reads and verifies every listed object and checks that the
// only other files in fan-out directories are temporary files, so nothing
// half-written sits under an object name. It returns the object count.
func verifyStore(t *testing.T, s *loose.Store) int {
	t.Helper()
	ctx := context.Background()
	n := 0
	err := s.List(ctx, func(id objects.OID) error {
		n++
		_, err := s.Get(ctx, id)
		return err
	})
	if err != nil {
		t.Fatalf("after a crash: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(s.Dir(), "*", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	objectsSeen := 0
	for _, f := range files {
		name := filepath.Base(f)
		switch {
		case strings.HasPrefix(name, ".tmp-"):
		case len(name) == 62:
			objectsSeen++
		default:
			t.Fatalf("unexpected file %s", f)
		}
	}
	if objectsSeen != n {
		t.Fatalf("%d object files on disk, %d listed", objectsSeen, n)
	}
	return n
}
