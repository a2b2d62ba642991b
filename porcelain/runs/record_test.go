package runs_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

func TestRecordCapturesAndAppends(t *testing.T) {
	r := newRepo(t)
	ctx := context.Background()
	clk := fakeClock(time.Unix(1767225600, 0), 1500*time.Millisecond)
	var out, errb bytes.Buffer
	res, err := runs.Record(ctx, r, runs.RecordOptions{
		Argv:   []string{"sh", "-c", "echo hi; echo err >&2; echo password=hunter2-secret; exit 3"},
		Env:    []string{"PATH=/usr/bin:/bin", "SECRET_TOKEN=abc", "HOME=/x"},
		Stdout: &out, Stderr: &errb, Now: clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.Previous != "" {
		t.Fatalf("exit code %d, want 3", res.ExitCode)
	}
	if out.String() != "hi\npassword=hunter2-secret\n" || errb.String() != "err\n" {
		t.Fatalf("live streams: %q %q", out.String(), errb.String())
	}
	if res.Duration != 1.5 {
		t.Fatalf("duration %v, want 1.5 from the fake clock", res.Duration)
	}
	run := loadRef(t, r, "heads/main")
	if len(run.Events) != 1 || run.Status != "running" || !run.HasCreatedAt {
		t.Fatalf("run: %+v", run)
	}
	ev := run.Events[0]
	if ev.Kind != "tool" || ev.Tool != "shell" || ev.TimeUnix != 1767225600 || ev.Duration != 1.5 {
		t.Fatalf("event fields: %+v", ev)
	}
	code, _ := ev.Attributes.Get("exit_code")
	names, _ := ev.Attributes.Get("env_names")
	if code.Int != 3 || len(names.Array) != 3 || names.Array[0].Str != "HOME" || names.Array[2].Str != "SECRET_TOKEN" {
		t.Fatalf("attributes: %+v", ev.Attributes)
	}
	// The value as a JSON string or an assignment: the event also holds
	// hex (oids, and the code state of the work tree the test runs in,
	// its git commit included), which may spell "abc" by chance.
	if body := string(ev.Object.Body); strings.Contains(body, `"abc"`) || strings.Contains(body, "=abc") {
		t.Fatalf("an environment value reached the event: %s", ev.Object.Body)
	}
	stdout, err := r.Objects().Get(ctx, ev.OutputBlob)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(stdout.Body), "hunter2") || !strings.Contains(string(stdout.Body), "[REDACTED]") {
		t.Fatalf("stdout blob not redacted: %q", stdout.Body)
	}
	stderr, err := r.Objects().Get(ctx, ev.ArtifactBlob)
	if err != nil || string(stderr.Body) != "err\n" {
		t.Fatalf("stderr blob: %v %q", err, stderr.Body)
	}

	// A second record chains onto the tip and moves the ref by CAS.
	res2, err := runs.Record(ctx, r, runs.RecordOptions{Argv: []string{"true"}, Now: clk})
	if err != nil || res2.ExitCode != 0 || res2.Previous != res.Run {
		t.Fatalf("second record: %+v %v", res2, err)
	}
	run = loadRef(t, r, "heads/main")
	if len(run.Events) != 2 || run.Events[1].Parents[0] != ev.ID || len(run.Tips) != 1 || run.Tips[0] != run.Events[1].ID {
		t.Fatalf("chained run: %+v", run)
	}
	// REF~1 is the snapshot before the second record (from the reflog).
	prev := loadRef(t, r, "heads/main~1")
	if !prev.Stored || prev.ID.String() != res.Run {
		t.Fatalf("heads/main~1 = %s (stored %v), want %s", prev.ID, prev.Stored, res.Run)
	}
	if _, _, err := runs.ResolveRun(ctx, r, "heads/main~2"); !errors.Is(err, plumbing.ErrUnknownRevision) {
		t.Fatalf("heads/main~2: %v", err)
	}
}

func TestRecordCommandNotFound(t *testing.T) {
	r := newRepo(t)
	_, err := runs.Record(context.Background(), r, runs.RecordOptions{Argv: []string{"no-such-command-tine-test"}})
	if !errors.Is(err, runs.ErrCommandNotStarted) {
		t.Fatalf("err %v", err)
	}
	if _, err := r.Refs().Read(t.Context(), "heads/main"); err == nil {
		t.Fatal("a command that never ran was recorded")
	}
}

func TestRecordCapCapture(t *testing.T) {
	r := newRepo(t)
	res, err := runs.Record(context.Background(), r, runs.RecordOptions{
		Argv: []string{"sh", "-c", "printf 0123456789"}, MaxCapture: 4,
	})
	if err != nil || !res.StdoutTruncated || res.StderrTruncated {
		t.Fatalf("%+v %v", res, err)
	}
	b, _ := r.Objects().Get(context.Background(), mustOID(t, res.Stdout))
	if string(b.Body) != "0123" {
		t.Fatalf("captured %q", b.Body)
	}
}

func TestAppendEventRules(t *testing.T) {
	r := newRepo(t)
	clk := fakeClock(time.Unix(1767225600, 0), time.Second)
	a := appendEvent(t, r, "", `{"kind":"model","model":"m1","cost":0.5,"usage":{"input":10,"output":2},"input":"q","api_key":"sk-x"}`, clk)
	run := loadRef(t, r, a.Ref)
	ev := run.Events[0]
	if ev.Cost != 0.5 || ev.Tokens() != 12 || ev.InputBlob.IsZero() || len(ev.Parents) != 0 {
		t.Fatalf("event: %+v", ev)
	}
	if v, _ := ev.Value.Get("api_key"); v.Str != "[REDACTED]" {
		t.Fatalf("api_key not redacted: %+v", v)
	}
	for _, bad := range []string{
		`{"kind":"model","cost":-1}`,
		`{"kind":"x","kind":"y"}`,
		`{"usage":{"input":1.5}}`,
		`{"parent_ids":["event:blake3:` + strings.Repeat("0", 64) + `"]}`,
		`[1]`,
		`{"input":{"path":"../etc/passwd"}}`,
	} {
		_, err := runs.AppendEvent(context.Background(), r, runs.AppendEventOptions{Data: []byte(bad), Dir: t.TempDir()})
		if err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if got := loadRef(t, r, "heads/main"); got.ID != run.ID {
		t.Fatal("a refused event moved the ref")
	}
	_ = objects.TypeRun
}
