package refs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

func TestUpdateCreateReadReflog(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	r1, r2 := g.run(objects.BLAKE3, "1"), g.run(objects.BLAKE3, "2")
	if _, err := s.Read(t.Context(), "heads/main"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Read absent = %v", err)
	}
	if err := s.Create(ctx, "refs/heads/main", r1, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, "heads/main", r2, r1, "bob"); err != nil {
		t.Fatal(err)
	}
	if got := mustRead(t, s, "heads/main"); got != r2 {
		t.Fatalf("Read = %s", got)
	}
	b, _ := os.ReadFile(filepath.Join(s.root, "refs/heads/main"))
	if string(b) != r2.String()+"\n" {
		t.Fatalf("ref file %q", b)
	}
	log := mustLog(t, s, "heads/main")
	if len(log) != 2 || !log[0].Old.IsZero() || log[0].New != r1 || log[1].Old != r1 || log[1].New != r2 ||
		log[0].Actor != "alice" || log[1].Actor != "bob" || log[1].TimeNS <= log[0].TimeNS {
		t.Fatalf("reflog %+v", log)
	}
	if rows, err := s.Reflog("heads/main"); err != nil || len(rows) != 2 || rows[1].Time().Unix() != 1757030402 {
		t.Fatalf("Reflog = %+v, %v", rows, err)
	}
	if ExpectValue(r1).String() != r1.String() || ExpectAny.String() != "any value" || ExpectValue(objects.OID{}) != ExpectAbsent {
		t.Fatal("Expect spelling")
	}
	if o, err := s.Resolve(ctx, "heads/main"); err != nil || o.ID != r2 {
		t.Fatalf("Resolve = %v, %v", o, err)
	}
	noLocks(t, s)
}

func TestStaleError(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.SHA256)
	r1, r2, r3 := g.run(objects.SHA256, "1"), g.run(objects.SHA256, "2"), g.run(objects.SHA256, "3")
	if err := s.Create(ctx, "heads/main", r1, "a"); err != nil {
		t.Fatal(err)
	}
	err := s.Update(ctx, "heads/main", r3, r2, "a")
	var se *StaleError
	if !errors.As(err, &se) || se.Name != "heads/main" || se.Expected != r2 || se.Actual != r1 || !errors.Is(err, ErrStale) {
		t.Fatalf("Update with wrong old = %v", err)
	}
	if !strings.Contains(err.Error(), r1.String()) || !strings.Contains(err.Error(), r2.String()) {
		t.Fatalf("message lacks values: %v", err)
	}
	// Create of an existing ref: expected absent.
	err = s.Create(ctx, "heads/main", r2, "a")
	if !errors.As(err, &se) || !se.Expected.IsZero() || se.Actual != r1 || !strings.Contains(err.Error(), "absent") {
		t.Fatalf("Create existing = %v", err)
	}
	// Expecting a value of an absent ref.
	err = s.Update(ctx, "heads/other", r2, r1, "a")
	if !errors.As(err, &se) || se.Expected != r1 || !se.Actual.IsZero() {
		t.Fatalf("Update absent = %v", err)
	}
	if got := mustRead(t, s, "heads/main"); got != r1 || len(mustLog(t, s, "heads/main")) != 1 {
		t.Fatal("stale update changed the ref or its log")
	}
	// ExpectAny moves it whatever it holds; ExpectExists refuses absent.
	if err := s.UpdateExpect(ctx, "heads/main", r3, ExpectAny, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateExpect(ctx, "heads/new", r3, ExpectExists, "a"); !errors.As(err, &se) || !se.AnyValue ||
		!errors.Is(err, ErrStale) || err.Error() != "ref heads/new does not exist" {
		t.Fatalf("ExpectExists on absent = %v", err)
	}
	noLocks(t, s)
}

func TestLockedFailsFast(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	r1 := g.run(objects.BLAKE3, "1")
	guard := filepath.Join(s.root, "refs/heads/main.lock")
	if err := os.WriteFile(guard, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := s.Create(ctx, "heads/main", r1, "a")
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) || errors.Is(err, ErrStale) || le.Path != guard {
		t.Fatalf("Create under a held guard = %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "heads/main") || !strings.Contains(msg, guard) || !strings.Contains(msg, "locked") {
		t.Fatalf("LockedError message %q", msg)
	}
	if _, err := os.Stat(guard); err != nil {
		t.Fatal("the other writer's guard was removed")
	}
	if _, err := s.Read(t.Context(), "heads/main"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ref written despite the guard: %v", err)
	}
}

func TestTargetVerifiedBeforeMove(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	blob := g.put(objects.BLAKE3, objects.TypeBlob, "hello", objects.Value{})
	missing := objects.BLAKE3.Derive(objects.TypeRun, 1, []byte("nowhere"))
	sha := g.run(objects.SHA256, "x")
	for _, tc := range []struct {
		name string
		id   objects.OID
		want func(error) bool
	}{
		{"heads/a", blob, func(err error) bool { return objects.HasReason(err, objects.ReasonRefTargetType) }},
		{"heads/b", missing, func(err error) bool { return errors.Is(err, objects.ErrNotFound) }},
		{"tags/c", sha, func(err error) bool { return objects.HasReason(err, objects.ReasonOidMalformed) }},
		{"heads/Bad", blob, func(err error) bool { return objects.HasReason(err, objects.ReasonRefNameNotCasefolded) }},
	} {
		if err := s.Create(ctx, tc.name, tc.id, "a"); !tc.want(err) {
			t.Errorf("Create(%s) = %v", tc.name, err)
		}
	}
	if err := s.Create(ctx, "tags/blob", blob, "a"); err != nil {
		t.Fatalf("tags take any object: %v", err)
	}
	if rr, _ := s.ReadReflog("heads/a"); len(rr.Entries) != 0 {
		t.Fatal("reflog row for a refused update")
	}
	if err := s.Create(ctx, "heads/x", g.run(objects.BLAKE3, "x"), strings.Repeat("a", 4097)); !objects.HasReason(err, objects.ReasonReflogActorTooLong) {
		t.Fatalf("long actor = %v", err)
	}
	if _, err := s.Read(t.Context(), "heads/x"); !errors.Is(err, ErrNotFound) {
		t.Fatal("ref moved although its row was refused")
	}
	noLocks(t, s)
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	s, g := newTestStore(t, objects.BLAKE3)
	r1, r2 := g.run(objects.BLAKE3, "1"), g.run(objects.BLAKE3, "2")
	if err := s.Create(ctx, "heads/a/b", r1, "a"); err != nil {
		t.Fatal(err)
	}
	var se *StaleError
	if err := s.Delete(ctx, "heads/a/b", ExpectValue(r2)); !errors.As(err, &se) {
		t.Fatalf("Delete wrong value = %v", err)
	}
	if err := s.Delete(ctx, "heads/a/b", ExpectAbsent); !errors.Is(err, ErrBadExpect) {
		t.Fatalf("Delete ExpectAbsent = %v", err)
	}
	if err := s.Delete(ctx, "heads/a/b", ExpectValue(r1)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(t.Context(), "heads/a/b"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Read deleted = %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.root, "refs/heads/a")); !os.IsNotExist(err) {
		t.Fatal("empty directory heads/a not pruned")
	}
	if _, err := os.Stat(filepath.Join(s.root, "refs/heads")); err != nil {
		t.Fatal("namespace directory pruned")
	}
	if err := s.Delete(ctx, "heads/a/b", ExpectAny); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Delete absent = %v", err)
	}
	// heads/a can now be a ref; re-creating heads/a/b logs old null.
	if err := s.Create(ctx, "heads/a/b", r2, "a"); err != nil {
		t.Fatal(err)
	}
	log := mustLog(t, s, "heads/a/b")
	if len(log) != 2 || log[1].New != r2 || !log[1].Old.IsZero() {
		t.Fatalf("reflog after delete and re-create: %+v", log)
	}
	noLocks(t, s)
}

func TestReadRejectsBadFiles(t *testing.T) {
	s, g := newTestStore(t, objects.BLAKE3)
	r1 := g.run(objects.BLAKE3, "1")
	dir := filepath.Join(s.root, "refs/heads")
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("crlf", r1.String()+"\r\n")
	if got := mustRead(t, s, "heads/crlf"); got != r1 {
		t.Fatalf("crlf = %s", got)
	}
	write("space", r1.String()+" \n")
	if _, err := s.Read(t.Context(), "heads/space"); !objects.HasReason(err, objects.ReasonRefFileNotCanonical) {
		t.Fatalf("space = %v", err)
	}
	write("sha", g.run(objects.SHA256, "1").String()+"\n")
	if _, err := s.Read(t.Context(), "heads/sha"); !objects.HasReason(err, objects.ReasonOidMalformed) {
		t.Fatalf("other algo = %v", err)
	}
	write("big", strings.Repeat("a", 300))
	if _, err := s.Read(t.Context(), "heads/big"); !objects.HasReason(err, objects.ReasonRefFileOversized) {
		t.Fatalf("oversized = %v", err)
	}
	if err := os.Link(filepath.Join(dir, "crlf"), filepath.Join(dir, "hard")); err != nil {
		t.Skip("no hard links here")
	}
	if _, err := s.Read(t.Context(), "heads/hard"); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("hard link = %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "crlf"), filepath.Join(dir, "sym")); err != nil {
		t.Skip("no symlinks here")
	}
	if _, err := s.Read(t.Context(), "heads/sym"); err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("symlink = %v", err)
	}
}
