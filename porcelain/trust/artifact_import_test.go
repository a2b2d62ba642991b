package trust_test

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/trust"
)

// fixture reads a generated .tine fixture (objects/artifact_fixture_test.go).
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "artifacts", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func importArtifact(t *testing.T, r *plumbing.Repo, data []byte, opt trust.ArtifactImportOptions) *trust.ArtifactImportResult {
	t.Helper()
	opt.Data = data
	res, err := trust.ImportArtifact(context.Background(), r, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestImportArtifactRoundTrip imports a generated v2 artifact and checks
// the migrate-v3 contract of SPEC §5.4 end to end.
func TestImportArtifactRoundTrip(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	src := fixture(t, "fix.tine")
	res := importArtifact(t, r, src, trust.ArtifactImportOptions{})
	if res.Ref != "heads/fix-tests" || !res.Created || res.Events != 3 || !res.Integrity.OK || res.LegacyFormat != 2 {
		t.Fatalf("result %+v", res)
	}
	if res.Signature == nil || res.Signature.State != objects.StateUnsigned {
		t.Errorf("signature verdict %+v", res.Signature)
	}
	fs, err := plumbing.Fsck(ctx, r, plumbing.FsckOptions{})
	if err != nil || !fs.OK() {
		t.Fatalf("fsck: %v %+v", err, fs)
	}
	run := loadRef(t, r, res.Ref)
	if run.Status != "completed" || len(run.Events) != 3 {
		t.Fatalf("run %s status %s, %d events", run.ID, run.Status, len(run.Events))
	}
	p := run.Value
	get := func(key string) *objects.Object {
		t.Helper()
		o, err := r.Objects().Get(ctx, mustOID(t, strField(t, p, key)))
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	if !bytes.Equal(get("legacy_blob").Body, src) {
		t.Error("legacy_blob is not the original bytes")
	}
	if s := strField(t, p, "signature_scope"); s != "legacy_blob_only" {
		t.Errorf("signature_scope %q", s)
	}
	if f, _ := p.Get("legacy_format"); f.Int != 2 {
		t.Errorf("legacy_format %v", f)
	}
	lv, _ := p.Get("legacy_verification")
	if strField(t, lv, "scope") != "original-v2-artifact" {
		t.Errorf("legacy_verification %v", lv)
	}
	if integ, _ := lv.Get("integrity"); strField(t, integ, "reason") != "ok" {
		t.Errorf("legacy integrity %v", integ)
	}
	if strField(t, p, "source_run_id") != "fix-tests" {
		t.Error("source_run_id")
	}
	// The map names every step, in the run's order, and each event
	// carries its legacy step id and mapped parents.
	art, err := objects.LoadArtifact(src)
	if err != nil {
		t.Fatal(err)
	}
	m, err := objects.ParseJSON(get("migration_map_blob").Body, objects.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range art.Steps {
		ev := run.Events[i]
		if strField(t, m, s.ID) != ev.ID.String() || res.EventMap[s.ID] != ev.ID.String() {
			t.Errorf("map[%s] = %s, event %d is %s", s.ID, strField(t, m, s.ID), i, ev.ID)
		}
		if strField(t, ev.Value, "legacy_step_id") != s.ID || ev.Kind != s.Kind {
			t.Errorf("event %d: %v", i, ev.Value)
		}
		if i > 0 && (len(ev.Parents) != 1 || ev.Parents[0] != run.Events[i-1].ID) {
			t.Errorf("event %d parents %v", i, ev.Parents)
		}
	}
	if run.Events[1].Tool != "pytest" || run.Events[0].Model != "gpt-5" || run.Events[0].Cost != 0.002 {
		t.Errorf("converted fields: tool %q model %q cost %v", run.Events[1].Tool, run.Events[0].Model, run.Events[0].Cost)
	}
	// Redaction before hashing: the credential in tool_info is gone from the
	// event, but kept in the verbatim legacy blob.
	if ti, _ := run.Events[1].Value.Get("tool_info"); strField(t, ti, "api_key") != "[REDACTED]" {
		t.Errorf("tool_info not redacted: %v", ti)
	}
	if !bytes.Contains(src, []byte("sk-proj-")) {
		t.Fatal("fixture lost its credential")
	}
	// Importing the same bytes again is a no-op; the view names the same run.
	again := importArtifact(t, r, src, trust.ArtifactImportOptions{})
	if again.Created || again.Run != res.Run {
		t.Errorf("re-import %+v", again)
	}
	view, err := trust.OpenArtifactView(ctx, r.Algo(), src)
	if err != nil {
		t.Fatal(err)
	}
	if view.Run.ID.String() != res.Run || view.Run.Stored {
		t.Errorf("view run %s (stored %v), imported %s", view.Run.ID, view.Run.Stored, res.Run)
	}
}

func strField(t *testing.T, v objects.Value, key string) string {
	t.Helper()
	s, ok := v.Get(key)
	if !ok || s.Kind != objects.KindString {
		t.Fatalf("%s is not a string member of %v", key, v)
	}
	return s.Str
}

// TestImportArtifactRefusesTampered checks strict integrity by default and
// the recorded failing verdict under AllowUnverified.
func TestImportArtifactRefusesTampered(t *testing.T) {
	r := newRepo(t)
	src := fixture(t, "tampered.tine")
	_, err := trust.ImportArtifact(context.Background(), r, trust.ArtifactImportOptions{Data: src})
	if !errors.Is(err, trust.ErrUnverifiedArtifact) || !strings.Contains(err.Error(), "digest mismatch") {
		t.Fatalf("tampered import: %v", err)
	}
	if _, err := r.Refs().Read(t.Context(), "heads/fix-tests"); err == nil {
		t.Fatal("a refused import moved a ref")
	}
	res := importArtifact(t, r, src, trust.ArtifactImportOptions{AllowUnverified: true, Ref: "heads/suspect"})
	run := loadRef(t, r, res.Ref)
	lv, _ := run.Value.Get("legacy_verification")
	integ, _ := lv.Get("integrity")
	if ok, _ := integ.Get("ok"); ok.Bool || strField(t, integ, "reason") != "digest mismatch" || run.Status != "failed" {
		t.Errorf("recorded verdict %v, status %s", integ, run.Status)
	}
	// A requested signature check on an unsigned source is refused too.
	_, err = trust.ImportArtifact(context.Background(), r, trust.ArtifactImportOptions{
		Data: fixture(t, "fix.tine"), CheckSignature: true, Signature: objects.VerifyOptions{HMACKey: []byte("0123456789abcdef0123")}})
	if !errors.Is(err, trust.ErrUnverifiedArtifact) {
		t.Errorf("unsigned source with a key: %v", err)
	}
}

// TestImportArtifactVariants covers CRLF (same content, same run), a v1
// source, an occupied ref, and a malformed file.
func TestImportArtifactVariants(t *testing.T) {
	r := newRepo(t)
	lf := importArtifact(t, r, fixture(t, "fix.tine"), trust.ArtifactImportOptions{Ref: "heads/lf"})
	crlf := importArtifact(t, r, fixture(t, "fix_crlf.tine"), trust.ArtifactImportOptions{Ref: "heads/crlf"})
	if !maps.Equal(lf.EventMap, crlf.EventMap) || lf.LegacyBlob == crlf.LegacyBlob {
		t.Errorf("CRLF: events should match and legacy blobs differ: %+v %+v", lf, crlf)
	}
	v1 := importArtifact(t, r, fixture(t, "fix_v1.tine"), trust.ArtifactImportOptions{})
	if v1.LegacyFormat != 1 || !v1.Integrity.OK || v1.Ref != "heads/fix-tests-v1" {
		t.Errorf("v1 import %+v", v1)
	}
	_, err := trust.ImportArtifact(context.Background(), r, trust.ArtifactImportOptions{Data: fixture(t, "retry.tine"), Ref: "heads/lf"})
	if !errors.Is(err, runs.ErrRefExists) {
		t.Errorf("occupied ref: %v", err)
	}
	_, err = trust.ImportArtifact(context.Background(), r, trust.ArtifactImportOptions{Data: []byte(`{"a":1,"a":2}`)})
	if !objects.HasReason(err, objects.ReasonArtifactDuplicateKey) {
		t.Errorf("duplicate key: %v", err)
	}
}

func TestDefaultArtifactRef(t *testing.T) {
	for in, want := range map[string]string{"Fix Tests!": "heads/fix-tests", "...": "heads/imported", "a/b": "heads/a-b", "run_1.x": "heads/run_1-x"} {
		if got := trust.DefaultArtifactRef(in); got != want {
			t.Errorf("DefaultArtifactRef(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestArtifactViewDiff diffs two .tine views without a repository write:
// the shared prefix is common and the last step differs.
func TestArtifactViewDiff(t *testing.T) {
	ctx := context.Background()
	a, err := trust.OpenArtifactView(ctx, objects.SHA256, fixture(t, "fix.tine"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := trust.OpenArtifactView(ctx, objects.SHA256, fixture(t, "retry.tine"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := runs.Diff(ctx, a.Store, a.Run, b.Run, runs.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Identical || len(res.Common) != 2 || len(res.OnlyA) != 1 || len(res.OnlyB) != 1 {
		t.Errorf("diff: identical %v common %d only %d/%d", res.Identical, len(res.Common), len(res.OnlyA), len(res.OnlyB))
	}
}
