package objects

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// minimalV2 is the SPEC §3.5 worked-vector document with a placeholder
// for run_id.
const minimalV2 = `{"cache": {}, "created_at": 0, "format_version": 2, "graph": {"order": [], "steps": {}},
 "manifest": {}, "metadata": {}, "policies": {}, "refs": {}, "run_id": "demo", "status": "completed", "transcript": []}`

// TestParseArtifactRules covers each reader rule of SPEC §3.7 (vector
// file 31) with its exact reason code.
func TestParseArtifactRules(t *testing.T) {
	digits := func(n int) string { return strings.Repeat("7", n) }
	cases := []struct {
		name, in string
		reason   Reason // "" means accepted
	}{
		{"minimal", minimalV2, ""},
		{"crlf", strings.ReplaceAll(minimalV2, "\n", "\r\n"), ""},
		{"top-level array", "[[1],[2]]", ""},
		{"paired escape", `{"a":"\ud83d\ude00"}`, ""},
		{"bom", "\xEF\xBB\xBF{}", ""},
		{"nul", "{\"a\":\"x\x00y\"}", ReasonArtifactNulByte},
		{"nul beats malformed", "{\x00", ReasonArtifactNulByte},
		{"malformed", `{"format_version": 2, "run_id":`, ReasonArtifactMalformedJson},
		{"invalid utf-8", "{\"a\":\"\xff\"}", ReasonArtifactMalformedJson},
		{"duplicate", `{"run_id":"a","run_id":"b"}`, ReasonArtifactDuplicateKey},
		{"nested duplicate", `{"x":{"k":1,"k":1}}`, ReasonArtifactDuplicateKey},
		{"nan", `{"cost": NaN}`, ReasonArtifactNonFinite},
		{"infinity", `{"cost": Infinity}`, ReasonArtifactNonFinite},
		{"-infinity", `{"cost": -Infinity}`, ReasonArtifactNonFinite},
		{"1e400", `{"cost": 1e400}`, ReasonArtifactNonFinite},
		{"4096 digits", `{"n": ` + digits(4096) + `}`, ""},
		{"-4096 digits", `{"n": -` + digits(4096) + `}`, ""},
		{"4097 digits", `{"n": ` + digits(4097) + `}`, ReasonArtifactIntegerTooManyDigits},
		{"digits in a string", `{"n": "` + digits(5000) + `"}`, ""},
		{"depth 512", strings.Repeat("[", 512) + "0" + strings.Repeat("]", 512), ""},
		{"depth 513", strings.Repeat("[", 513) + "0" + strings.Repeat("]", 513), ReasonArtifactStructureExcessive},
		{"escaped lone surrogate", `{"run_id":"\ud800"}`, ReasonArtifactLoneSurrogate},
		{"lone surrogate in a key", `{"\udc00":1}`, ReasonArtifactLoneSurrogate},
		{"raw cesu-8", "{\"run_id\":\"\xed\xa0\x80\"}", ReasonArtifactLoneSurrogate},
		{"U+D7FF is text", "{\"a\":\"\xed\x9f\xbf\"}", ""},
	}
	for _, c := range cases {
		_, err := ParseArtifact([]byte(c.in))
		got, _ := ReasonOf(err)
		if c.reason == "" && err != nil {
			t.Errorf("%s: refused: %v", c.name, err)
		} else if c.reason != "" && got != c.reason {
			t.Errorf("%s: reason %q, want %q (%v)", c.name, got, c.reason, err)
		}
	}
}

// TestParseArtifactTokenBudget checks the len/4 budget at its floor: the
// 16-bounds pair is 200002 tokens over and 199999 under.
func TestParseArtifactTokenBudget(t *testing.T) {
	build := func(n int) []byte { return []byte("[" + strings.Repeat("[],", n) + "[]]") }
	if _, err := ParseArtifact(build(66665)); err != nil {
		t.Errorf("under budget refused: %v", err)
	}
	if _, err := ParseArtifact(build(66666)); !HasReason(err, ReasonArtifactStructureExcessive) {
		t.Errorf("over budget: %v", err)
	}
	for n, want := range map[int]int{0: 200000, 800000: 200000, 800004: 200001, 1 << 30: 16000000} {
		if got := ArtifactTokenBudget(n); got != want {
			t.Errorf("ArtifactTokenBudget(%d) = %d, want %d", n, got, want)
		}
	}
}

func artParse(t *testing.T, s string) Value {
	t.Helper()
	v, err := ParseArtifact([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// withIntegrity returns minimalV2 with run_id, format_version and an
// integrity block spelled as given.
func withIntegrity(runID, version, integrity string) string {
	s := strings.Replace(minimalV2, `"run_id": "demo"`, `"run_id": "`+runID+`"`, 1)
	s = strings.Replace(s, `"format_version": 2`, `"format_version": `+version, 1)
	return strings.Replace(s, `"metadata": {}`, `"metadata": {"integrity": `+integrity+`}`, 1)
}

const workedDigest = "3a9321a351b896fd41c5be9eabe1b3042da5c1a15e72968066bc04f11cd90e30"

// TestVerifyIntegrityVerdicts checks every verdict of SPEC §3.5 (vector
// file 35) with its exact reason string.
func TestVerifyIntegrityVerdicts(t *testing.T) {
	ok := `{"algorithm": "sha256", "digest": "` + workedDigest + `"}`
	cases := []struct {
		name, doc, reason, algo, expected string
		ok, actual                        bool
	}{
		{"ok", withIntegrity("demo", "2", ok), "ok", "sha256", workedDigest, true, true},
		{"mismatch", withIntegrity("nope", "2", ok), "digest mismatch", "sha256", workedDigest, false, true},
		{"malformed", withIntegrity("demo", "2", `{"algorithm": "sha256", "digest": "zz"}`), "malformed digest", "sha256", `"zz"`, false, false},
		{"uppercase is a mismatch", withIntegrity("demo", "2", `{"algorithm": "sha256", "digest": "`+strings.ToUpper(workedDigest)+`"}`), "digest mismatch", "sha256", "", false, true},
		{"md5", withIntegrity("demo", "2", `{"algorithm": "md5", "digest": "00"}`), "unsupported algorithm", "md5", `"00"`, false, false},
		{"no algorithm", withIntegrity("demo", "2", `{"digest": "00"}`), "unsupported algorithm", "None", `"00"`, false, false},
		{"missing", minimalV2, "missing integrity digest", "", "", false, false},
		{"integrity not an object", withIntegrity("demo", "2", `"x"`), "missing integrity digest", "", "", false, false},
		{"future", withIntegrity("demo", "99", ok), "unsupported .tine format_version=99; written by a newer opentine", "", "", false, false},
		{"zero", withIntegrity("demo", "0", ok), "unsupported .tine format_version=0; supported (1, 2)", "", "", false, false},
		{"string", withIntegrity("demo", `"2"`, ok), "unsupported .tine format_version='2'; supported (1, 2)", "", "", false, false},
		{"float", withIntegrity("demo", `2.0`, ok), "unsupported .tine format_version=2.0; supported (1, 2)", "", "", false, false},
		{"bool", withIntegrity("demo", `true`, ok), "unsupported .tine format_version=True; supported (1, 2)", "", "", false, false},
		{"null", withIntegrity("demo", `null`, ok), "unsupported .tine format_version='missing'; supported (1, 2)", "", "", false, false},
		{"root array", `[]`, "artifact root is not an object", "", "", false, false},
	}
	for _, c := range cases {
		r := VerifyIntegrity(artParse(t, c.doc))
		if r.Reason != c.reason || r.OK != c.ok || (r.Actual != nil) != c.actual {
			t.Errorf("%s: got ok=%v reason=%q actual=%v", c.name, r.OK, r.Reason, r.Actual)
		}
		if c.algo != "" && (r.Algorithm == nil || *r.Algorithm != c.algo) {
			t.Errorf("%s: algorithm %v, want %q", c.name, r.Algorithm, c.algo)
		}
		if c.expected != "" && c.expected[0] == '"' && pyRepr(r.Expected) != "'"+c.expected[1:len(c.expected)-1]+"'" {
			t.Errorf("%s: expected %s", c.name, pyRepr(r.Expected))
		}
	}
}

func TestIntegrityDigestIgnoresLayoutAndMetadata(t *testing.T) {
	for _, s := range []string{minimalV2, strings.ReplaceAll(minimalV2, "\n", "\r\n"),
		strings.Replace(minimalV2, `"metadata": {}`, `"metadata": {"tags": ["x"], "anything": [1, 2]}`, 1)} {
		d, err := IntegrityDigest(artParse(t, s))
		if err != nil || d != workedDigest {
			t.Errorf("digest %s, %v", d, err)
		}
	}
	if _, err := IntegrityDigest(artParse(t, "[]")); !errors.Is(err, ErrArtifactNotObject) {
		t.Errorf("array: %v", err)
	}
}

func TestPyHexDigest(t *testing.T) {
	for s, want := range map[string]bool{
		workedDigest: true, strings.ToUpper(workedDigest): true, "zz": false,
		" " + workedDigest[1:]: true, "_" + workedDigest[1:]: false, workedDigest[:32] + "_" + workedDigest[33:]: true,
		workedDigest[:32] + "__" + workedDigest[34:]: false, "0x" + workedDigest[2:]: true, "g" + workedDigest[1:]: false,
	} {
		if got := pyHexDigest(s); got != want {
			t.Errorf("pyHexDigest(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestPyRepr(t *testing.T) {
	for in, want := range map[string]string{
		`null`: "None", `[1, 2.5, true]`: "[1, 2.5, True]", `{"a": "it's"}`: `{'a': "it's"}`,
		`"a\nb\u0001\u00e9\ud800"`: `'a\nb\x01é\ud800'`, `1e20`: "1e+20", `"both'\""`: `'both\'"'`,
	} {
		v, err := ParseJSON([]byte(in), ParseOptions{AllowLoneSurrogates: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := pyRepr(v); got != want {
			t.Errorf("pyRepr(%s) = %s, want %s", in, got, want)
		}
	}
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(artifactDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLoadArtifactFixtures decodes the generated fixtures: steps in order,
// parents resolved, step ids re-derivable, v1 migrated with a fresh digest.
func TestLoadArtifactFixtures(t *testing.T) {
	a, err := LoadArtifact(readFixture(t, "fix.tine"))
	if err != nil {
		t.Fatal(err)
	}
	if a.RunID != "fix-tests" || a.Version != 2 || len(a.Steps) != 3 || a.ModelInfo != "gpt-5" || a.Status != "completed" {
		t.Fatalf("decoded %+v", a)
	}
	for i, s := range a.Steps {
		if id, err := s.DerivedID(); err != nil || id != s.ID {
			t.Errorf("step %d id %s re-derives as %s (%v)", i, s.ID, id, err)
		}
	}
	if a.Steps[1].ParentIDs[0] != a.Steps[0].ID || a.Steps[1].Kind != "tool" {
		t.Errorf("step 1 = %+v", a.Steps[1])
	}
	v1, err := LoadArtifact(readFixture(t, "fix_v1.tine"))
	if err != nil {
		t.Fatal(err)
	}
	if VerifyIntegrity(v1.Original).Reason != "ok" || v1.Version != 1 {
		t.Fatalf("v1 source does not verify")
	}
	if fv, _ := v1.Doc.Get("format_version"); fv.Int != 2 {
		t.Errorf("migrated format_version = %v", fv)
	}
	if r := VerifyIntegrity(v1.Doc); !r.OK {
		t.Errorf("migrated digest: %s", r.Reason)
	}
	md, _ := v1.Doc.Get("metadata")
	if chain, _ := md.Get("migration"); len(chain.Array) != 1 {
		t.Errorf("migration chain %v", chain)
	}
	if fv, _ := v1.Original.Get("format_version"); fv.Int != 1 {
		t.Errorf("migration wrote through to the original")
	}
}

// TestDecodeArtifactRefusals checks fail-closed record validation.
func TestDecodeArtifactRefusals(t *testing.T) {
	cases := map[string]struct {
		old, new string
		want     error
	}{
		"future":     {`"format_version": 2`, `"format_version": 3`, ErrArtifactVersion},
		"no version": {`"format_version": 2,`, ``, ErrArtifactVersion},
		"status":     {`"status": "completed"`, `"status": "done"`, ErrBadArtifact},
		"run_id":     {`"run_id": "demo"`, `"run_id": ""`, ErrBadArtifact},
		"order":      {`"order": []`, `"order": ["x"]`, ErrBadArtifact},
		"ref":        {`"refs": {}`, `"refs": {"main": "x"}`, ErrBadArtifact},
		"transcript": {`"transcript": []`, `"transcript": {}`, ErrBadArtifact},
		"created_at": {`"created_at": 0`, `"created_at": "0"`, ErrBadArtifact},
	}
	for name, c := range cases {
		_, err := DecodeArtifact(artParse(t, strings.Replace(minimalV2, c.old, c.new, 1)))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	if _, err := DecodeArtifact(artParse(t, "[]")); !errors.Is(err, ErrArtifactNotObject) {
		t.Errorf("array: %v", err)
	}
	if _, err := DecodeArtifact(artParse(t, minimalV2)); err != nil {
		t.Errorf("minimal: %v", err)
	}
}

func TestIntegrityResultJSON(t *testing.T) {
	r := VerifyIntegrity(artParse(t, withIntegrity("demo", "2", `{"algorithm": "sha256", "digest": 7}`)))
	b, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"ok":false,"algorithm":"sha256","expected":7,"actual":null,"reason":"malformed digest"}`; string(b) != want {
		t.Errorf("json %s, want %s", b, want)
	}
}
