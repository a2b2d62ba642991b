package runs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/porcelain/runs"
)

func TestImportRoundTrip(t *testing.T) {
	r := newRepo(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "out", "log.txt"), []byte("Authorization: Bearer sk-abcdefghijklmnopqrstuvwxyz\nok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stream := strings.Join([]string{
		`{"id":"plan","kind":"model","model":"m","cost":0.25,"input":"plan it"}`,
		`{"id":"run","kind":"tool","tool":"pytest","output":{"path":"out/log.txt"}}`,
		``,
		`{"id":"alt","parents":["plan"],"kind":"tool","artifact":{"b64":"AAEC"}}`,
		`{"parents":["run","alt"],"causal":["plan"],"kind":"human","score":1}`,
	}, "\n")
	res, err := runs.Import(context.Background(), r, runs.ImportOptions{
		Ref: "experiments/imp", Input: strings.NewReader(stream), Dir: dir, Now: fakeClock(time.Unix(1, 0), time.Second),
	})
	if err != nil {
		t.Fatal(err)
	}
	run := loadRef(t, r, "experiments/imp")
	if len(run.Events) != 4 || len(res.Events) != 4 || len(run.Roots) != 1 || len(run.Tips) != 1 {
		t.Fatalf("run: %d events, roots %v, tips %v", len(run.Events), run.Roots, run.Tips)
	}
	last := run.Events[3]
	if len(last.Parents) != 2 || last.Parents[0].String() != res.IDs["run"] || last.Parents[1].String() != res.IDs["alt"] || len(last.Causal) != 1 {
		t.Fatalf("links of the last event: %+v", last)
	}
	if run.Events[1].Parents[0].String() != res.IDs["plan"] {
		t.Fatal("a line without parents must follow the previous line")
	}
	b, err := r.Objects().Get(context.Background(), run.Events[1].OutputBlob)
	if err != nil || strings.Contains(string(b.Body), "sk-abc") {
		t.Fatalf("path blob not read or not redacted: %v %q", err, b.Body)
	}
	if tot := run.Totals(); tot.Cost != 0.25 {
		t.Fatalf("totals %+v", tot)
	}
}

func TestImportErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	good := `{"id":"a","kind":"tool"}` + "\n"
	for _, c := range []struct{ stream, want string }{
		{good + `{"kind":`, "line 2"},
		{good + `{"parents":["nope"]}`, "line 2"},
		{good + `{"id":"a"}`, "line 2"},
		{`{"parent_ids":[]}`, "line 1"},
		{good + good[:len(good)-1], "line 2"},
		{`{"output":{"path":"../x"}}`, "line 1"},
		{`{"output":{"path":"link"}}`, "line 1"},
		{`{"cost":"-1"}`, "line 1"},
		{"\n\n", "no events"},
	} {
		r := newRepo(t)
		_, err := runs.Import(context.Background(), r, runs.ImportOptions{Input: strings.NewReader(c.stream), Dir: dir})
		if !errors.Is(err, runs.ErrBadImport) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want ErrBadImport naming %q", c.stream, err, c.want)
		}
		if _, rerr := r.Refs().Read(t.Context(), "heads/main"); rerr == nil {
			t.Errorf("%q: the ref moved", c.stream)
		}
	}
}

// TestImportRefusesLinkedPaths checks a {"path": ...} blob spec is refused
// when its file, or any directory on the way to it, is a symlink, even one
// that points inside the import directory, and when it is not a regular
// file; nothing is stored and the ref does not move.
func TestImportRefusesLinkedPaths(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "f.txt"), []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "real", "f.txt"), []byte("inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"file.txt": filepath.Join(outside, "f.txt"), "real/in.txt": "f.txt",
		"outdir": outside, "indir": "real",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ path, want string }{
		{"file.txt", "symlink"},
		{"real/in.txt", "symlink"},
		{"outdir/f.txt", "symlink"},
		{"indir/f.txt", "symlink"},
		{"real", "not a regular file"},
	} {
		r := newRepo(t)
		stream := `{"kind":"tool","output":{"path":"` + c.path + `"}}`
		_, err := runs.Import(context.Background(), r, runs.ImportOptions{Input: strings.NewReader(stream), Dir: dir})
		if !errors.Is(err, runs.ErrBadImport) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%s: %v, want ErrBadImport on line 1 naming %q", c.path, err, c.want)
		}
		if _, rerr := r.Refs().Read(t.Context(), runs.DefaultRef); rerr == nil {
			t.Errorf("%s: the ref moved", c.path)
		}
	}
}
