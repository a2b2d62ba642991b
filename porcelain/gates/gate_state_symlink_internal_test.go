package gates

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/internal/fsutil"
)

// stateOps are the operations on the gate state directory outside setup
// and uninstall, as the hooks, gate cycle and gate supervise run them.
var stateOps = map[string]func(state string) error{
	"session": func(state string) error {
		s, err := updateSession(state, "s1", func(s *hookSession) { s.Attempts++ })
		if err == nil && s.Goal != "" {
			return errors.New("the goal was read through a link: " + s.Goal)
		}
		return err
	},
	"journal-save": func(state string) error {
		return saveJournal(state, &loopJournal{SchemaVersion: 1, Loop: "l", StartedAt: 1, UpdatedAt: 1})
	},
	"journal-load": func(state string) error {
		_, err := loadJournal(state, "l")
		return err
	},
	"journal-lock": func(state string) error {
		l, err := lockLoop(context.Background(), state, "l")
		if err == nil {
			l.Unlock()
		}
		return err
	},
	"lease": func(state string) error {
		_, err := AcquireLease(state, "l", LeaseOptions{TTL: time.Minute})
		return err
	},
}

// SnapshotNoFollow is snapshot, for the package's external tests.
var SnapshotNoFollow = snapshot

// snapshot lists the files under root without following links, with the
// bytes of each file and the target of each link.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&os.ModeSymlink != 0:
			to, err := os.Readlink(p)
			out[rel] = "-> " + to
			return err
		case d.IsDir():
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGateStateRefusesLinks: a symlink planted in the gate state
// directory, at .tine/gate itself, at loops/ or sessions/, at a journal,
// lease or session, or at one of their lock files, is refused by every
// operation that would read, write or lock through it, and the error names
// it. The link is left as it was, what it reaches keeps its bytes (a
// session's goal is not read from it), and a dangling link's target is
// not created, so nothing is written outside the repository.
func TestGateStateRefusesLinks(t *testing.T) {
	const session = `{"schema_version":1,"session":"s1","goal":"from outside","attempts":0,"last_hook_feedback":""}`
	const journal = `{"schema_version":1,"loop":"l","contract_digest":"","started_at":1,"updated_at":1,"observation":0,"repair_attempt":0,"unchanged_repairs":0,"prior_state":"","prior_snapshot":"","input_snapshot":"","last_result":null,"last_run":"","goal":"","continuations":0}`
	cases := []struct {
		at      string // the link, relative to the state directory ("" is the directory)
		content string // what the link reaches, tried also dangling; "dir" links to a directory
		ops     []string
	}{
		{"", "dir", []string{"session", "journal-save", "journal-load", "journal-lock", "lease"}},
		{"sessions", "dir", []string{"session"}},
		{"sessions/s1.json", session, []string{"session"}},
		{"sessions/s1.json.lock", "", []string{"session"}},
		{"loops", "dir", []string{"journal-save", "journal-load", "journal-lock", "lease"}},
		{"loops/l.json", journal, []string{"journal-save", "journal-load"}},
		{"loops/l.lock", "", []string{"journal-lock"}},
		{"loops/l.lease.json", `{"schema_version":1,"loop":"l","pid":1,"token":"t","expires_at":1}`, []string{"lease"}},
		{"loops/l.lease.lock", "", []string{"lease"}},
	}
	for _, c := range cases {
		for _, dangling := range []bool{false, true} {
			if dangling && c.content == "dir" {
				continue
			}
			for _, op := range c.ops {
				name := "gate/" + c.at + map[bool]string{true: "-dangling"}[dangling] + "/" + op
				t.Run(name, func(t *testing.T) {
					state, outside := filepath.Join(t.TempDir(), "gate"), t.TempDir()
					link, target := filepath.Join(state, filepath.FromSlash(c.at)), filepath.Join(outside, "f")
					switch {
					case c.content == "dir":
						target = outside
					case !dangling:
						if err := os.WriteFile(target, []byte(c.content), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(target, link); err != nil {
						t.Skipf("symlinks unavailable: %v", err)
					}
					before := snapshot(t, outside)
					err := stateOps[op](state)
					if !errors.Is(err, fsutil.ErrSymlink) || !strings.Contains(err.Error(), link+" is a symlink") {
						t.Fatalf("err %v: want a refusal naming %s", err, link)
					}
					if to, err := os.Readlink(link); err != nil || to != target {
						t.Fatalf("the link is now %q, %v; want it to point at %s", to, err, target)
					}
					if got := snapshot(t, outside); !maps.Equal(got, before) {
						t.Fatalf("written through the link: %v, was %v", got, before)
					}
				})
			}
		}
	}
}
