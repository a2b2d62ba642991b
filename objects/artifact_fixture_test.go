package objects

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The .tine fixtures under testdata/artifacts are generated here, so every
// step id and digest in them is computed by this package and checked
// against the worked vector of SPEC §3.5 first. Regenerate with
//
//	go test ./objects -run TestArtifactFixtures -update-artifacts
var updateArtifacts = flag.Bool("update-artifacts", false, "rewrite testdata/artifacts/*.tine")

// artifactDir is where the fixtures live, relative to this package.
var artifactDir = filepath.Join("..", "testdata", "artifacts")

// fxStep describes one step of a fixture run.
type fxStep struct {
	kind, model     string
	parents         []int // indexes of earlier steps
	inputs, outputs Value
	tool            Value
	ts, cost, dur   float64
}

// fxObj builds an object from alternating keys and values.
func fxObj(kv ...any) Value {
	var ms []Member
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		var val Value
		switch x := v.(type) {
		case Value:
			val = x
		case string:
			val = String(x)
		case int:
			val = Int(int64(x))
		case float64:
			val = Float(x)
		}
		ms = append(ms, Member{Key: kv[i].(string), Value: val})
	}
	return ObjectValue(ms...)
}

// buildFixture returns a v2 (or v1) .tine document with correct step ids
// and integrity digest.
func buildFixture(t testing.TB, runID string, version int, steps []fxStep) Value {
	t.Helper()
	ids := make([]string, len(steps))
	var order []Value
	var recs []Member
	for i, s := range steps {
		var parents []string
		for _, p := range s.parents {
			parents = append(parents, ids[p])
		}
		tool := s.tool
		if tool.Kind == KindNull {
			tool = ObjectValue()
		}
		id, err := StepID(s.kind, parents, s.inputs, s.outputs, s.model, tool, ObjectValue())
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
		pv := make([]Value, len(parents))
		for j, p := range parents {
			pv[j] = String(p)
		}
		order = append(order, String(id))
		recs = append(recs, Member{Key: id, Value: fxObj("cost", s.cost, "duration", s.dur, "error", ObjectValue(), "id", id,
			"inputs", s.inputs, "kind", s.kind, "model_info", s.model, "outputs", s.outputs, "parent_ids", Array(pv...),
			"timestamp", s.ts, "tool_info", tool)})
	}
	doc := fxObj("cache", ObjectValue(), "created_at", 1767225600.0, "format_version", version,
		"graph", fxObj("order", Array(order...), "steps", ObjectValue(recs...)),
		"manifest", fxObj("model", fxObj("name", "gpt-5")), "policies", ObjectValue(),
		"refs", fxObj("main", ids[len(ids)-1]), "run_id", runID, "status", "completed", "transcript", Array())
	digest, err := IntegrityDigest(doc)
	if err != nil {
		t.Fatal(err)
	}
	md := fxObj("integrity", fxObj("algorithm", "sha256", "digest", digest), "model_info", "gpt-5",
		"system_prompt", "You fix failing tests.", "user_prompt", "Make the suite pass.")
	return withMember(doc, "metadata", md)
}

// fixtureSteps is the base run: plan with a model, run the tests with a
// tool whose info holds a credential (redacted on import), finish.
func fixtureSteps(lastOutput string) []fxStep {
	return []fxStep{
		{kind: "model", model: "gpt-5", inputs: fxObj("prompt", "plan the fix"), outputs: fxObj("text", "run pytest"), ts: 1767225601.5, cost: 0.002, dur: 1.25},
		{kind: "tool", parents: []int{0}, inputs: fxObj("cmd", "pytest -q"), outputs: fxObj("exit_code", 1, "stdout", "1 failed"),
			tool: fxObj("api_key", "sk-proj-abcdefghijklmnopqrstuvwx", "name", "pytest"), ts: 1767225603.0, dur: 2.5},
		{kind: "done", parents: []int{1}, inputs: ObjectValue(), outputs: fxObj("text", lastOutput), ts: 1767225604.0},
	}
}

// fixtureFiles returns every fixture by file name.
func fixtureFiles(t testing.TB) map[string][]byte {
	render := func(doc Value, crlf bool) []byte {
		b, err := EncodeArtifact(doc)
		if err != nil {
			t.Fatal(err)
		}
		if crlf {
			return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
		}
		return b
	}
	fix := buildFixture(t, "fix-tests", 2, fixtureSteps("gave up"))
	retry := buildFixture(t, "fix-tests-retry", 2, fixtureSteps("all green"))
	// tampered: an output edited after the digest was written.
	tampered := withMember(fix, "status", String("failed"))
	return map[string][]byte{
		"fix_signed.tine": render(signFixture(t, fix), false),
		"fix.tine":        render(fix, false),
		"fix_crlf.tine":   render(fix, true),
		"retry.tine":      render(retry, false),
		"tampered.tine":   render(tampered, false),
		"fix_v1.tine":     render(buildFixture(t, "fix-tests-v1", 1, fixtureSteps("gave up")), false),
		"worked_vector.tine": render(fxObj("cache", ObjectValue(), "created_at", 0, "format_version", 2,
			"graph", fxObj("order", Array(), "steps", ObjectValue()), "manifest", ObjectValue(), "metadata", ObjectValue(),
			"policies", ObjectValue(), "refs", ObjectValue(), "run_id", "demo", "status", "completed", "transcript", Array()), false),
	}
}

// fixtureHMACKey signs fix_signed.tine under tine-sig/2; the testscript
// sessions hold the same key in a file.
const fixtureHMACKey = "fixture-signing-key-0123456789ab"

// signFixture places a tine-sig/2 HMAC block at metadata.integrity.signature.
func signFixture(t testing.TB, doc Value) Value {
	key, err := NewHMACSigningKey([]byte(fixtureHMACKey))
	if err != nil {
		t.Fatal(err)
	}
	id, signer := "ci-2026", "ci"
	block, err := SignDocument(doc, SignRequest{Scheme: SchemeSigV2, Key: key, KeyID: &id, Signer: &signer})
	if err != nil {
		t.Fatal(err)
	}
	md, _ := doc.Get("metadata")
	integ, _ := md.Get("integrity")
	integ = withMember(integ, "signature", block.ToValue())
	if v := VerifyArtifact(withMember(doc, "metadata", withMember(md, "integrity", integ)), VerifyOptions{HMACKey: []byte(fixtureHMACKey)}); !v.OK {
		t.Fatalf("signed fixture does not verify: %s", v.Reason)
	}
	return withMember(doc, "metadata", withMember(md, "integrity", integ))
}

// TestArtifactFixtures checks the writer against SPEC §3.5's worked
// vector, then that testdata/artifacts holds exactly what it generates.
func TestArtifactFixtures(t *testing.T) {
	files := fixtureFiles(t)
	doc, err := ParseArtifact(files["worked_vector.tine"])
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := IntegrityDigest(doc); d != "3a9321a351b896fd41c5be9eabe1b3042da5c1a15e72968066bc04f11cd90e30" {
		t.Fatalf("worked vector digest = %s", d)
	}
	for name, want := range files {
		path := filepath.Join(artifactDir, name)
		if *updateArtifacts {
			if err := os.MkdirAll(artifactDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (regenerate with -update-artifacts)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the generator writes (regenerate with -update-artifacts)", name)
		}
	}
}

// TestArtifactScriptFixtures checks that the testscript session embeds the
// generated fixtures byte for byte (plus the newline txtar adds).
func TestArtifactScriptFixtures(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("..", "testdata", "script", "trust_artifact.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := fixtureFiles(t)
	n := 0
	for _, f := range ar.Files {
		want, ok := files[f.Name]
		if !ok {
			continue
		}
		n++
		if !bytes.Equal(f.Data, append(want, '\n')) {
			t.Errorf("trust_artifact.txtar: %s is not the generated fixture", f.Name)
		}
	}
	if n < 4 {
		t.Errorf("trust_artifact.txtar embeds %d fixtures, want 4", n)
	}
}
