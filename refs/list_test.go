package refs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

func TestList(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	r := g.run(objects.BLAKE3, "r")
	for _, name := range []string{"heads/a/b", "heads/a-c", "tags/v1", "heads/z"} {
		if err := s.Create(ctx, name, r, "t"); err != nil {
			t.Fatal(err)
		}
	}
	w := func(rel, content string) {
		p := filepath.Join(s.root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w("refs/heads/z.lock", "x")           // a writer at work
	w("refs/heads/z..lock", "x")          // its staging file
	w("refs/heads/Bad", r.String()+"\n")  // illegal name
	w("refs/branches/x", r.String()+"\n") // illegal namespace
	var got []string
	err := s.List(ctx, "refs/heads/", func(name string, id objects.OID) error {
		if id != r {
			t.Errorf("%s = %s", name, id)
		}
		got = append(got, name)
		return nil
	})
	want := []string{"heads/a-c", "heads/a/b", "heads/z"} // byte order, like git
	if err != nil || len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("List = %v, %v; want %v", got, err, want)
	}
	got = nil
	s.List(ctx, "", func(name string, _ objects.OID) error { got = append(got, name); return nil })
	if len(got) != 4 || got[3] != "tags/v1" {
		t.Fatalf("List all = %v", got)
	}
	stop := errors.New("stop")
	if err := s.List(ctx, "", func(string, objects.OID) error { return stop }); err != stop {
		t.Fatalf("callback error = %v", err)
	}
}

func TestTornReflogRow(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	r1, r2 := g.run(objects.BLAKE3, "1"), g.run(objects.BLAKE3, "2")
	if err := s.Create(ctx, "heads/m", r1, "t"); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(s.root, "logs/heads/m")
	f, _ := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"actor":"t","new":"run:bla`) // a crash mid-append
	f.Close()
	rr, err := s.ReadReflog("heads/m")
	if err != nil || len(rr.Entries) != 1 || rr.TornBytes != len(`{"actor":"t","new":"run:bla`) {
		t.Fatalf("ReadReflog torn = %+v, %v", rr, err)
	}
	if err := s.Update(ctx, "heads/m", r2, r1, "t"); err != nil {
		t.Fatal(err)
	}
	log := mustLog(t, s, "heads/m")
	if len(log) != 2 || log[1].New != r2 || log[1].Old != r1 {
		t.Fatalf("reflog after append over a torn row: %+v", log)
	}
}

func TestShallowStore(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	a, b := g.run(objects.BLAKE3, "a"), g.run(objects.BLAKE3, "b")
	if ids, err := s.ReadShallow(); err != nil || len(ids) != 0 {
		t.Fatalf("ReadShallow missing = %v, %v", ids, err)
	}
	if err := writeShallow(ctx, s, []objects.OID{b, a, b}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(s.root, "shallow"))
	if string(raw) != string(EncodeShallow([]objects.OID{a, b})) {
		t.Fatalf("shallow file %q", raw)
	}
	err := s.UpdateShallow(ctx, func(cur []objects.OID) ([]objects.OID, error) {
		if len(cur) != 2 {
			t.Errorf("UpdateShallow saw %v", cur)
		}
		return cur[:1], nil
	})
	if ids, _ := s.ReadShallow(); err != nil || len(ids) != 1 {
		t.Fatalf("UpdateShallow = %v, %v", ids, err)
	}
	if err := writeShallow(ctx, s, []objects.OID{g.run(objects.SHA256, "x")}); !objects.HasReason(err, objects.ReasonOidMalformed) {
		t.Fatalf("other algo = %v", err)
	}
	lock := filepath.Join(s.root, "shallow.lock")
	os.WriteFile(lock, nil, 0o644)
	if err := writeShallow(ctx, s, nil); !errors.Is(err, ErrLocked) {
		t.Fatalf("held shallow.lock = %v", err)
	}
	os.Remove(lock)
	if err := os.Link(filepath.Join(s.root, "shallow"), filepath.Join(s.root, "shallow2")); err == nil {
		if _, err := s.ReadShallow(); !errors.Is(err, ErrNotRegular) {
			t.Fatalf("hard-linked shallow = %v", err)
		}
	}
}

// TestListTolerantSkipsSymlinkedRef: one symlinked ref does not hide the
// others from ListTolerant, which names it; List still fails on it.
func TestListTolerantSkipsSymlinkedRef(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	r1 := g.run(objects.BLAKE3, "1")
	for _, name := range []string{"heads/a", "heads/z"} {
		if err := s.Create(ctx, name, r1, "t"); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a", s.refPath("heads/m")); err != nil {
		t.Fatal(err)
	}
	var good, bad []string
	err := s.ListTolerant(ctx, "", func(name string, _ objects.OID) error {
		good = append(good, name)
		return nil
	}, func(name string, err error) error {
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "symlink") {
			t.Errorf("%s: %v", name, err)
		}
		bad = append(bad, name)
		return nil
	})
	if err != nil || !slices.Equal(good, []string{"heads/a", "heads/z"}) || !slices.Equal(bad, []string{"heads/m"}) {
		t.Fatalf("ListTolerant: good %v, bad %v, %v", good, bad, err)
	}
	if err := s.List(ctx, "", func(string, objects.OID) error { return nil }); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("List over a symlinked ref: %v", err)
	}
}
