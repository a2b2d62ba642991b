package runs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
)

// initRepo creates a repository in a temporary directory.
func initRepo(t *testing.T) *plumbing.Repo {
	t.Helper()
	r, _, err := plumbing.Init(t.TempDir(), objects.BLAKE3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// appendJSON appends the event js to ref.
func appendJSON(t *testing.T, r *plumbing.Repo, ref, js, status string) *AppendResult {
	t.Helper()
	res, err := AppendEvent(context.Background(), r, AppendEventOptions{Ref: ref, Data: []byte(js), Status: status})
	if err != nil {
		t.Fatalf("append %s: %v", js, err)
	}
	return res
}

// TestRecordRefusesUnwritableBeforeRunning: when any directory the append
// needs refuses a probe file, Record fails with ErrNotWritable and the
// command never runs. The probe is injected, since root (the CI's user)
// writes through permission bits; the harness test covers a real refusal.
func TestRecordRefusesUnwritableBeforeRunning(t *testing.T) {
	r := initRepo(t)
	appendJSON(t, r, "heads/main", `{"kind":"human","output":"x"}`, "")
	marker := filepath.Join(t.TempDir(), "ran")
	objDirs := []string{"objects/blob", "objects/event", "objects/run"}
	if r.AppendsToPacks() {
		objDirs = []string{"objects/pack"}
	}
	for _, bad := range append(objDirs, "refs/heads", "logs/heads", "refs-txn") {
		var probed []string
		_, err := Record(context.Background(), r, RecordOptions{
			Argv: []string{"touch", marker},
			probe: func(dir string) error {
				rel, _ := filepath.Rel(r.Root(), dir)
				probed = append(probed, filepath.ToSlash(rel))
				if filepath.ToSlash(rel) == bad {
					return os.ErrPermission
				}
				return nil
			},
		})
		if !errors.Is(err, ErrNotWritable) || !errors.Is(err, os.ErrPermission) || !slices.Contains(probed, bad) {
			t.Fatalf("%s refused: err %v (probed %v)", bad, err, probed)
		}
		if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s refused, yet the command ran", bad)
		}
	}
	// A real probe of a writable repository leaves nothing behind.
	if err := checkWritable(r, "heads/main", nil); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(r.Root(), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".tmp-") {
			t.Errorf("probe left %s", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAppendRecordedJoinsConcurrentAppend: another writer appended while
// the command ran; the recorded event keeps the tip it saw as its parent
// and joins the run as a second tip, without any command running again.
func TestAppendRecordedJoinsConcurrentAppend(t *testing.T) {
	ctx := context.Background()
	r := initRepo(t)
	first := appendJSON(t, r, "heads/main", `{"kind":"human"}`, "")
	before, err := readHead(ctx, r, "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	other := appendJSON(t, r, "heads/main", `{"kind":"model","model":"m"}`, "")
	ev := recordedEvent(t, r, before)
	res, err := appendRecorded(ctx, r, before, ev, nil, objects.OID{}, "", time.Unix(1767225600, 0), "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Previous != other.Run {
		t.Fatalf("appended onto %s, want the concurrent writer's run %s", res.Previous, other.Run)
	}
	h, err := readHead(ctx, r, "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	tips := []string{h.tips[0].String(), h.tips[1].String()}
	slices.Sort(tips)
	want := []string{other.Event, ev.ID.String()}
	slices.Sort(want)
	if len(h.tips) != 2 || !slices.Equal(tips, want) {
		t.Fatalf("tips %v, want %v", tips, want)
	}
	de, _ := DecodeEvent(ev)
	if len(de.Parents) != 1 || de.Parents[0].String() != first.Event {
		t.Fatalf("parents %v, want the tip seen before the command (%s)", de.Parents, first.Event)
	}
	if _, err := LoadRun(ctx, r.Objects(), h.id()); err != nil {
		t.Fatalf("the joined run does not validate: %v", err)
	}
	// Appending the same event again finds it there and writes nothing.
	again, err := appendRecorded(ctx, r, before, ev, nil, objects.OID{}, "", time.Unix(1767225600, 0), "")
	if err != nil || again.Run != h.id().String() {
		t.Fatalf("repeat append: %+v %v", again, err)
	}
}

// TestAppendRecordedRefusesChangedRun: a run completed or deleted while
// the command ran is a recording failure, never a silent success.
func TestAppendRecordedRefusesChangedRun(t *testing.T) {
	ctx := context.Background()
	r := initRepo(t)
	appendJSON(t, r, "heads/main", `{"kind":"human"}`, "")
	before, err := readHead(ctx, r, "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	appendJSON(t, r, "heads/main", `{"kind":"human","error":"stop"}`, StatusCompleted)
	ev := recordedEvent(t, r, before)
	if _, err := appendRecorded(ctx, r, before, ev, nil, objects.OID{}, "", time.Now(), ""); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("append to a run completed meanwhile: %v", err)
	}
	id, _ := r.Refs().Read(t.Context(), "heads/main")
	if err := r.Refs().Delete(ctx, "heads/main", refs.ExpectValue(id)); err != nil {
		t.Fatal(err)
	}
	if _, err := appendRecorded(ctx, r, before, ev, nil, objects.OID{}, "", time.Now(), ""); err == nil {
		t.Fatal("append to a deleted run succeeded")
	}
}

// TestRecoveryFileAppendsTheSameEvent: the recovery file, given to
// AppendEvent (tine record --event), stores exactly the event and blobs
// the failed append would have, binary output and redaction included.
func TestRecoveryFileAppendsTheSameEvent(t *testing.T) {
	ctx := context.Background()
	r := initRepo(t)
	appendJSON(t, r, "heads/main", `{"kind":"human"}`, "")
	before, err := readHead(ctx, r, "heads/main")
	if err != nil {
		t.Fatal(err)
	}
	cr := &commandRun{
		code: 130, signal: "interrupt", forwarded: []string{"interrupt"},
		start: time.Unix(1767225600, 250000000), end: time.Unix(1767225601, 0),
		stdout: []byte("token=abcdef0123456789secret\n\x00\xff binary\n"), stderr: []byte("err\n"),
	}
	out := objects.NewBlob(r.Algo(), redactBlob(cr.stdout))
	errOut := objects.NewBlob(r.Algo(), redactBlob(cr.stderr))
	payload := recordPayload(objects.NewEnvRedactor([]string{"A=1"}), []string{"sh", "-c", "x"}, "/w", []string{"A=1"}, cr, before.tips, out.ID, errOut.ID)
	ev, err := objects.NewJSONObject(r.Algo(), objects.TypeEvent, 1, payload)
	if err != nil {
		t.Fatal(err)
	}
	path, err := writeRecovery(r, payload, out.Body, errOut.Body, cr.end)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != filepath.Join(r.Root(), RecoveryDir) {
		t.Fatalf("recovery file %s is outside %s", path, RecoveryDir)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := AppendEvent(ctx, r, AppendEventOptions{Ref: "heads/main", Data: data, Dir: filepath.Dir(path)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Event != ev.ID.String() {
		t.Fatalf("re-appended event %s, want the recorded one %s", res.Event, ev.ID)
	}
}

// recordedEvent builds a tool event recorded after before's tips.
func recordedEvent(t *testing.T, r *plumbing.Repo, before *head) *objects.Object {
	t.Helper()
	cr := &commandRun{start: time.Unix(1767225600, 0), end: time.Unix(1767225601, 0)}
	empty := objects.NewBlob(r.Algo(), nil)
	if err := r.Objects().Put(context.Background(), empty); err != nil {
		t.Fatal(err)
	}
	payload := recordPayload(objects.NewEnvRedactor(nil), []string{"true"}, "/", nil, cr, before.tips, empty.ID, empty.ID)
	ev, err := objects.NewJSONObject(r.Algo(), objects.TypeEvent, 1, payload)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestRecordSignalBeforeStartRunsNothing: a signal that arrived while
// record was still checking stops it before the command starts.
func TestRecordSignalBeforeStartRunsNothing(t *testing.T) {
	r := initRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGTERM
	_, err := Record(context.Background(), r, RecordOptions{Argv: []string{"touch", marker}, Signals: sigs})
	if !errors.Is(err, ErrSignalled) {
		t.Fatalf("err %v, want ErrSignalled", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the command ran although tine was signalled before it started")
	}
}
