package runs_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// plantRun stores body as a run object file under its true oid, without
// the store's checks, and points heads/main at it without the ref
// update's: what a damaged or hostile repository can hold.
func plantRun(t *testing.T, r *plumbing.Repo, body []byte) objects.OID {
	t.Helper()
	id := r.Algo().Derive(objects.TypeRun, 1, body)
	rel, err := objects.LoosePath(id)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(r.Root(), filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(objects.AppendHeader(nil, objects.TypeRun, 1), '\n')
	if err := os.WriteFile(path, append(env, body...), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Root(), "refs", "heads", "main"), []byte(id.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestAppendsRefuseUnsoundHead: the run an append builds on is read
// without a parse of its events, and still refused, before anything is
// written or run, when its body is not canonical JSON, when its events
// list is not a list of event oids, or when its tips are not among its
// events; the ref keeps its value.
func TestAppendsRefuseUnsoundHead(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	now := fakeClock(time.Unix(1767225600, 0), time.Second)
	res := appendEvent(t, r, "heads/main", `{"kind":"human"}`, now)
	head, err := r.Objects().Get(ctx, mustOID(t, res.Run))
	if err != nil {
		t.Fatal(err)
	}
	other := strings.Replace(res.Event, "event:blake3:", "event:blake3:0", 1)[:len(res.Event)]
	for _, c := range []struct {
		name   string
		body   []byte
		reason objects.Reason
	}{
		{"a space after the brace", bytes.Replace(head.Body, []byte(`{"`), []byte(`{ "`), 1), objects.ReasonEnvelopeBodyNonCanonical},
		{"an escaped letter", bytes.Replace(head.Body, []byte(`"running"`), []byte(`"runnin\u0067"`), 1), objects.ReasonEnvelopeBodyNonCanonical},
		{"events a string", bytes.Replace(head.Body, []byte(`"events":[`), []byte(`"events":"x","eventz":[`), 1), objects.ReasonLinkRunEventsInvalid},
		{"a tip outside events", bytes.Replace(head.Body, []byte(`"tips":["`+res.Event), []byte(`"tips":["`+other), 1), objects.ReasonLinkRunRootsTipsNotSubset},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := plantRun(t, r, c.body)
			_, err := runs.Record(ctx, r, runs.RecordOptions{Argv: []string{"sh", "-c", "exit 3"}, Env: []string{}, NoCapture: true})
			if reason, _ := objects.ReasonOf(err); reason != c.reason {
				t.Fatalf("record onto it: %v, want %s", err, c.reason)
			}
			_, err = runs.AppendEvent(ctx, r, runs.AppendEventOptions{Data: []byte(`{"kind":"human"}`)})
			if reason, _ := objects.ReasonOf(err); reason != c.reason {
				t.Fatalf("append onto it: %v, want %s", err, c.reason)
			}
			if got, err := r.Refs().Read(ctx, "heads/main"); err != nil || got != id {
				t.Fatalf("heads/main is %s (%v), want it unmoved at %s", got, err, id)
			}
		})
	}
}
