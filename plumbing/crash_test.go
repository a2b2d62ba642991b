package plumbing

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// crashEnv names the repository a re-executed test binary writes to in
// child mode; crashSeedEnv seeds its choices.
const (
	crashEnv     = "TINE_PLUMBING_CRASH_REPO"
	crashSeedEnv = "TINE_PLUMBING_CRASH_SEED"
)

// TestCrashChild is the writer the crash test kills. It does nothing unless
// the parent set crashEnv: then it appends events and runs forever, moving
// heads/main with a compare-and-swap and, every third step, heads/main and
// experiments/side together in one update-ref --stdin transaction.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnv)
	if dir == "" {
		t.Skip("child mode of TestCrashKill only")
	}
	seed, _ := strconv.ParseInt(os.Getenv(crashSeedEnv), 10, 64)
	if err := crashWriter(dir, seed); err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(3)
	}
}

// crashWriter is the child's endless write loop.
func crashWriter(dir string, seed int64) error {
	ctx := context.Background()
	rng := rand.New(rand.NewSource(seed))
	r, err := Open(dir)
	if err != nil {
		return err
	}
	for step := 0; ; step++ {
		var events []objects.OID
		cur, err := r.Refs().Read(ctx, "heads/main")
		switch {
		case errors.Is(err, refs.ErrNotFound):
		case err != nil:
			return err
		default:
			run, err := r.Objects().Get(ctx, cur)
			if err != nil {
				return err
			}
			v, _ := run.Value.Get("events")
			for _, e := range v.Array {
				id, err := objects.ParseOIDFor(r.Algo(), e.Str)
				if err != nil {
					return err
				}
				events = append(events, id)
			}
		}
		if len(events) >= 16 { // start a new chain so runs stay small
			events = nil
		}
		blob := objects.NewBlob(r.Algo(), []byte(fmt.Sprintf("output %d %d", seed, step)))
		if err := r.Objects().Put(ctx, blob); err != nil {
			return err
		}
		parents := "[]"
		if len(events) > 0 {
			parents = oidList(events[len(events)-1:])
		}
		ev, err := crashObject(r.Algo(), objects.TypeEvent, fmt.Sprintf(`{"kind":"tool","output_blob":%q,"parent_ids":%s,"step":%d}`, blob.ID, parents, rng.Int31()))
		if err != nil {
			return err
		}
		if err := r.Objects().Put(ctx, ev); err != nil {
			return err
		}
		events = append(events, ev.ID)
		run, err := crashObject(r.Algo(), objects.TypeRun, fmt.Sprintf(`{"events":%s,"roots":%s,"tips":%s}`, oidList(events), oidList(events[:1]), oidList(events[len(events)-1:])))
		if err != nil {
			return err
		}
		if err := r.Objects().Put(ctx, run); err != nil {
			return err
		}
		old := cur.String()
		if cur.IsZero() {
			old = oldAbsent
		}
		if step%3 == 2 {
			in := fmt.Sprintf("update heads/main %s %s\nupdate experiments/side %s\n", run.ID, old, run.ID)
			_, err = UpdateRefStdin(ctx, r, UpdateRefStdinOptions{Input: strings.NewReader(in), Actor: "crash"})
		} else {
			_, err = UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: run.ID.String(), Old: old, Actor: "crash"})
		}
		if err != nil {
			return err
		}
	}
}

// crashObject builds a json object from text.
func crashObject(a objects.Algo, t objects.Type, text string) (*objects.Object, error) {
	v, err := objects.ParseJSON([]byte(text), objects.ParseOptions{})
	if err != nil {
		return nil, err
	}
	return objects.NewJSONObject(a, t, 1, v)
}

// TestCrashKill kills the writer above with SIGKILL at random moments, many
// times, and requires after every kill: fsck finds no problem (leftovers
// are at most warnings, removed by RemoveStale), every ref names a readable
// object of its namespace's type, and the next writer can continue.
func TestCrashKill(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test re-executes the test binary")
	}
	if os.Getenv(crashEnv) != "" {
		t.Skip("in child mode")
	}
	const rounds = 60
	rng := rand.New(rand.NewSource(20240611))
	ctx := context.Background()
	for _, a := range algos {
		dir := t.TempDir()
		if _, _, err := Init(dir, a); err != nil {
			t.Fatal(err)
		}
		warnings := 0
		for round := 0; round < rounds/len(algos); round++ {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), crashEnv+"="+dir, crashSeedEnv+"="+strconv.Itoa(rng.Int()))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(40+rng.Intn(160)) * time.Millisecond)
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err == nil || strings.Contains(stderr.String(), "crash child:") {
				t.Fatalf("%s round %d: child ended on its own: %v\n%s", a, round, err, stderr.String())
			}
			r, err := Open(dir)
			if err != nil {
				t.Fatalf("%s round %d: open: %v", a, round, err)
			}
			res, err := Fsck(ctx, r, FsckOptions{RemoveStale: true, StaleAfter: -1})
			if err != nil {
				t.Fatalf("%s round %d: fsck: %v", a, round, err)
			}
			if !res.OK() {
				t.Fatalf("%s round %d: fsck problems after SIGKILL: %+v", a, round, res.Problems)
			}
			warnings += len(res.Warnings) + len(res.Removed) + res.RemovedTemp
			err = r.Refs().List(ctx, "", func(name string, id objects.OID) error {
				_, err := r.Refs().Resolve(ctx, name)
				return err
			})
			if err != nil {
				t.Fatalf("%s round %d: ref target: %v", a, round, err)
			}
		}
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		log, err := Reflog(ctx, r, ReflogOptions{Ref: "heads/main"})
		// Startup of the child costs most of a round, so some rounds die
		// before their first update; a third of them must get one in.
		if err != nil || len(log.Entries) < rounds/len(algos)/3 {
			t.Fatalf("%s: too little progress: %d reflog rows, %v", a, len(log.Entries), err)
		}
		head, err := r.Resolve(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := UpdateRef(ctx, r, UpdateRefOptions{Ref: "heads/main", New: head.String(), Old: head.String()}); err != nil {
			t.Fatalf("%s: repository unusable after the crashes: %v", a, err)
		}
		t.Logf("%s: %d rounds, %d updates, %d leftovers cleaned or warned", a, rounds/len(algos), len(log.Entries), warnings)
	}
}
