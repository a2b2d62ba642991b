package runs

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// TestRecordRedactsSecretEnvValues pins issue 10 item 8 at the library
// level: a secret-named variable's value echoed alone by the recorded
// command, or expanded into its argv, is stored as the marker; a rerun
// redacts the same way, so it sees no drift.
func TestRecordRedactsSecretEnvValues(t *testing.T) {
	dir := t.TempDir()
	r, _, err := plumbing.Init(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	env := []string{"PATH=" + os.Getenv("PATH"), "API_KEY=abc123xyz", "PGPASSWORD=correct-horse"}
	ctx := context.Background()
	res, err := Record(ctx, r, RecordOptions{
		Argv: []string{"sh", "-c", `echo $API_KEY; echo "$PGPASSWORD" >&2; : abc123xyz`},
		Dir:  dir, Env: env,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{res.Stdout, res.Stderr, res.Event} {
		oid, err := objects.ParseOID(id)
		if err != nil {
			t.Fatal(err)
		}
		o, err := r.Objects().Get(ctx, oid)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(o.Body, []byte("abc123xyz")) || bytes.Contains(o.Body, []byte("correct-horse")) {
			t.Errorf("%s stores a secret value: %q", id, o.Body)
		}
	}
	rr, err := RerunRevision(ctx, r, "main", RerunOptions{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Events) != 1 || rr.Events[0].StdoutDrift || rr.Events[0].StderrDrift {
		t.Fatalf("rerun of the redacted command drifted: %+v", rr.Events)
	}
}
