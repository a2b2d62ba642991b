package plumbing

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// appendCrashEnv names the repository a re-executed test binary appends
// to in child mode.
const appendCrashEnv = "TINE_PLUMBING_APPEND_CRASH_REPO"

// appendOne appends one event to the run heads/main names (creating it)
// through WriteAppend and moves the ref by compare-and-swap.
func appendOne(ctx context.Context, r *Repo, i int) error {
	head, err := r.Refs().Read(ctx, "heads/main")
	var base *objects.Object
	var evs []objects.OID
	switch {
	case err == nil:
		if base, err = r.Objects().Get(ctx, head); err != nil {
			return err
		}
		if evs, err = objects.RunEventIDs(base); err != nil {
			return err
		}
	case !errors.Is(err, refs.ErrNotFound):
		return err
	}
	parents := "[]"
	if len(evs) > 0 {
		parents = fmt.Sprintf("[%q]", evs[len(evs)-1].String())
	}
	ev, err := objects.NewObjectFromBody(r.Algo(), objects.TypeEvent, 1,
		fmt.Appendf(nil, `{"kind":"model","label":"append %d of a long run","parent_ids":%s}`, i, parents))
	if err != nil {
		return err
	}
	evs = append(evs, ev.ID)
	run, err := objects.NewObjectFromBody(r.Algo(), objects.TypeRun, 1, fmt.Appendf(nil, `{"events":%s,"roots":%s,"tips":%s}`,
		oidJSON(evs), oidJSON(evs[:1]), oidJSON(evs[len(evs)-1:])))
	if err != nil {
		return err
	}
	if err := r.WriteAppend(ctx, []*objects.Object{ev, run}, base); err != nil {
		return err
	}
	expect := refs.ExpectAbsent
	if base != nil {
		expect = refs.ExpectValue(base.ID)
	}
	return r.Refs().UpdateExpect(ctx, "heads/main", run.ID, expect, "test")
}

// oidJSON spells ids as a JSON list.
func oidJSON(ids []objects.OID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprintf("%q", id.String())
	}
	return "[" + strings.Join(s, ",") + "]"
}

// TestAppendCrashChild is the process TestAppendCrashKill kills: it appends
// to heads/main (each append a storage pack, the run a delta, small packs
// merged as they pile up) until killed.
func TestAppendCrashChild(t *testing.T) {
	dir := os.Getenv(appendCrashEnv)
	if dir == "" {
		t.Skip("child mode of TestAppendCrashKill only")
	}
	ctx := context.Background()
	r, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "append crash child:", err)
		os.Exit(3)
	}
	fmt.Println("ready")
	for i := 0; ; i++ {
		if err := appendOne(ctx, r, i); err != nil {
			fmt.Fprintln(os.Stderr, "append crash child:", err)
			os.Exit(3)
		}
	}
}

// TestAppendCrashKill SIGKILLs a child appending one event at a time (so
// writing a pack per append and merging packs) at random moments; after
// every kill the run heads/main names, every snapshot its reflog names and
// every event read back (re-hashed, deltas rebuilt) through a freshly
// opened repository, fsck finds no problem, and the next append works.
func TestAppendCrashKill(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test re-executes the test binary")
	}
	if os.Getenv(appendCrashEnv) != "" || os.Getenv(gcCrashEnv) != "" || os.Getenv(crashEnv) != "" {
		t.Skip("in child mode")
	}
	rng := rand.New(rand.NewSource(20261201))
	for _, a := range algos {
		r := packsOn(t, newRepo(t, a))
		for round := range 8 {
			delay := time.Duration(100+rng.Intn(700)) * time.Millisecond
			crashRound(t, "^TestAppendCrashChild$", appendCrashEnv+"="+r.Root(), delay)
			fr, err := Open(r.Root())
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			n := 0
			if head, err := fr.Refs().Read(ctx, "heads/main"); err == nil {
				run, err := fr.Objects().Get(ctx, head)
				if err != nil {
					t.Fatalf("round %d: run %s: %v", round, head, err)
				}
				evs, err := objects.RunEventIDs(run)
				if err != nil {
					t.Fatal(err)
				}
				mustReadAll(t, fr.Root(), evs)
				n = len(evs)
			}
			res := mustFsckClean(t, fr)
			packs := len(packNames(t, fr))
			if err := appendOne(ctx, fr, 1_000_000+round); err != nil {
				t.Fatalf("round %d: append after the kill: %v", round, err)
			}
			fr.Close()
			t.Logf("%s round %d (killed after %v): %d events, %d objects, %d packs", a, round, delay, n, res.Objects, packs)
		}
	}
}

// crashRound starts the test binary running test with env, waits for it
// to print ready, lets it work for delay and kills it.
func crashRound(t *testing.T, test, env string, delay time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run="+test, "-test.count=1")
	cmd.Env = append(os.Environ(), env)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil || string(buf) != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child did not start: %q %v\n%s", buf, err, stderr.String())
	}
	time.Sleep(delay)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || strings.Contains(stderr.String(), "crash child:") {
		t.Fatalf("child ended on its own: %v\n%s", err, stderr.String())
	}
}
