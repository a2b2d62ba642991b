package remotes

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
	"github.com/tinehq/tine/remote"
	"github.com/tinehq/tine/remote/remotetest"
)

// cloneHub clones hub into a new directory and returns the receipt and the
// clone's current-run ref ("" when it has none).
func cloneHub(t *testing.T, hub *remotetest.Repo) (*CloneResult, string) {
	t.Helper()
	res, err := Clone(context.Background(), CloneOptions{URL: hub.R.Root(), Dir: filepath.Join(t.TempDir(), "clone"), Depth: remote.NoDepth})
	if err != nil {
		t.Fatal(err)
	}
	r, err := plumbing.Open(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := r.ReadCurrentRun()
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		return res, ""
	}
	if _, err := r.Refs().Read(context.Background(), c.Ref); err != nil {
		t.Fatalf("the clone's current run %s: %v", c.Ref, err)
	}
	return res, c.Ref
}

// TestCloneTakesTheRemotesCurrentRun: a path remote names its current run
// (tine switch there), and the clone makes it its own, as git clone checks
// out the remote's HEAD; without one, heads/main, else the first heads/*.
func TestCloneTakesTheRemotesCurrentRun(t *testing.T) {
	hubWith := func(current string, names ...string) *remotetest.Repo {
		hub := remotetest.NewRepo(t, objects.BLAKE3)
		for _, ref := range names {
			hub.SetRef(ref, hub.Run(hub.Chain(ref, 1, objects.OID{})))
		}
		if current != "" {
			if err := hub.R.WriteCurrentRun(plumbing.CurrentRun{Ref: current}); err != nil {
				t.Fatal(err)
			}
		}
		return hub
	}
	for _, tc := range []struct {
		name, current string
		refs          []string
		want, from    string // want: the clone's current-run file ("": none)
		note          string
	}{
		{"switched to heads/dev", "heads/dev", []string{"heads/main", "heads/dev"}, "heads/dev", fromRemote, ""},
		{"no heads/main, switched", "heads/dev", []string{"heads/dev"}, "heads/dev", fromRemote, ""},
		{"an experiment", "experiments/e", []string{"heads/main", "experiments/e"}, "experiments/e", fromRemote, ""},
		{"no heads/main, none switched", "", []string{"heads/zeta", "heads/dev"}, "heads/dev", fromFirst, ""},
		{"heads/main, none switched", "", []string{"heads/main", "heads/dev"}, "", fromDefault, ""},
		{"current run not recorded yet", "heads/later", []string{"heads/main"}, "", fromDefault, "heads/later was not used: the remote has no such ref"},
		{"current run a tracking ref", "remotes/up/main", []string{"heads/dev", "remotes/up/main"}, "heads/dev", fromFirst, "remotes/up/main was not used: it is a tracking ref there"},
		{"only experiments, none switched", "", []string{"experiments/x"}, "", fromNone, ""},
		// A promotion moves only through tine promote, and runs are not
		// recorded under tags/: neither becomes a local ref or current.
		{"current run a promotion", "promotions/p", []string{"heads/main", "promotions/p"}, "", fromDefault, "promotions/p was not used: a clone takes a current run under heads/ or experiments/ only"},
		{"current run a tag", "tags/t", []string{"heads/dev", "tags/t"}, "heads/dev", fromFirst, "tags/t was not used: a clone takes a current run under heads/ or experiments/ only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, got := cloneHub(t, hubWith(tc.current, tc.refs...))
			cur := res.Current
			if got != tc.want || cur.From != tc.from || !strings.Contains(cur.Note, tc.note) || (tc.note == "") != (cur.Note == "") {
				t.Fatalf("current-run file %q, receipt %+v; want %q from %s, note %q", got, cur, tc.want, tc.from, tc.note)
			}
			if cur.Switched != (tc.want != "") || (tc.want != "" && cur.Ref != tc.want) {
				t.Fatalf("receipt %+v disagrees with the current-run file %q", cur, got)
			}
			for _, mv := range res.Refs {
				if ns := refs.NamespaceOf(mv.Ref); ns != refs.NamespaceHeads && ns != refs.NamespaceExperiments {
					t.Fatalf("the clone created the local ref %s", mv.Ref)
				}
			}
		})
	}
}

// TestCloneIgnoresADamagedRemoteCurrentRun: the remote's current-run file
// is its business; a damaged one is not used (nor repaired), the receipt
// says so, and the clone chooses as if the remote named none.
func TestCloneIgnoresADamagedRemoteCurrentRun(t *testing.T) {
	hub := remotetest.NewRepo(t, objects.BLAKE3)
	hub.SetRef("heads/dev", hub.Run(hub.Chain("d", 1, objects.OID{})))
	bad := []byte("{\"ref\":\"heads/dev\\u001b\",\"seen\":\"\"}\n")
	path := filepath.Join(hub.R.Root(), plumbing.CurrentRunFile)
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	res, got := cloneHub(t, hub)
	if got != "heads/dev" || res.Current.From != fromFirst || !strings.Contains(res.Current.Note, "current-run is damaged") {
		t.Fatalf("current-run file %q, receipt %+v", got, res.Current)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != string(bad) {
		t.Fatalf("the remote's file changed: %q, %v", b, err)
	}
}
