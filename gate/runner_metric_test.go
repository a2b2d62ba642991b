package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

func TestParseMetric(t *testing.T) {
	cases := []struct {
		p    MetricParser
		text string
		want float64
		err  string
	}{
		{MetricParser{Type: "json", Path: "totals.percent"}, `{"totals":{"percent":87.5}}`, 87.5, ""},
		{MetricParser{Type: "json", Path: "runs.1.n"}, `{"runs":[{"n":1},{"n":7}]}`, 7, ""},
		{MetricParser{Type: "json", Path: "v"}, `{"v":"42"}`, 42, ""},
		{MetricParser{Type: "json", Path: "v"}, `{"v":null}`, 0, "not a number"},
		{MetricParser{Type: "json", Path: "v"}, `{"v":true}`, 0, "not a number"},
		{MetricParser{Type: "json", Path: "v"}, `{"v":"Infinity"}`, 0, "not a number"},
		{MetricParser{Type: "json", Path: "v"}, `{"v":NaN}`, 0, "not valid JSON"},
		{MetricParser{Type: "json", Path: "v"}, `{"v":1,"v":2}`, 0, "not valid JSON"},
		{MetricParser{Type: "json", Path: "w"}, `{"v":1}`, 0, "no member"},
		{MetricParser{Type: "regex", Pattern: `^coverage: ([0-9.]+)%`, GroupIndex: 1}, "ok\ncoverage: 91.2%\n", 91.2, ""},
		{MetricParser{Type: "regex", Pattern: `total (?P<n>\d+)`, GroupName: "n"}, "total 12", 12, ""},
		{MetricParser{Type: "regex", Pattern: `total (\d+)`, GroupIndex: 1}, "nothing", 0, "did not match"},
	}
	for _, tc := range cases {
		got, err := ParseMetric(&tc.p, []byte(tc.text))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: want error %q, got %v, %v", tc.text, tc.err, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %v, %v; want %v", tc.text, got, err, tc.want)
		}
	}
}

func TestCompareOperators(t *testing.T) {
	cases := []struct {
		op   string
		v, t float64
		want bool
	}{
		{"gt", 2, 1, true}, {"gt", 1, 1, false}, {"gte", 1, 1, true}, {"gte", 0.9, 1, false},
		{"lt", 0, 1, true}, {"lt", 1, 1, false}, {"lte", 1, 1, true}, {"lte", 1.1, 1, false},
		{"eq", 3, 3, true}, {"eq", 3, 3.0001, false},
	}
	for _, tc := range cases {
		if got, err := Compare(tc.op, tc.v, tc.t); err != nil || got != tc.want {
			t.Errorf("%v %s %v: got %v %v", tc.v, tc.op, tc.t, got, err)
		}
	}
	if _, err := Compare("ne", 1, 2); err == nil {
		t.Fatal("unknown operator accepted")
	}
}

func metricContract(script, parser, threshold string) string {
	return "constraints:\n  m:\n    kind: metric\n    shell: true\n    command: '" + script + "'\n    parser: " + parser + "\n    threshold: " + threshold + "\n"
}

func TestMetricRunner(t *testing.T) {
	root := project(t, map[string]string{"sub/cov.json": `{"totals":{"pct":80}}`})
	ev := execOne(t, root, metricContract(`echo "{\"pct\": 91}"`, "{type: json, path: pct}", "{operator: gte, value: 85}"), "m", nil)
	if ev.Verdict != Pass || *ev.Value != 91 || *ev.Delta != 6 || len(ev.MetricSHA256) != 64 {
		t.Fatalf("got %s %q", ev.Verdict, ev.Message)
	}
	ev = execOne(t, root, metricContract("true", "{type: json, source: file, file: cov.json, path: totals.pct}", "{operator: gte, value: 85}")+"    cwd: sub\n", "m", nil)
	if ev.Verdict != Fail || *ev.Value != 80 || ev.Category != CategoryConstraint {
		t.Fatalf("file metric: %s %q", ev.Verdict, ev.Message)
	}
	ev = execOne(t, root, metricContract("echo garbage", "{type: json, path: pct}", "{operator: gte, value: 85}"), "m", nil)
	if ev.Verdict != Error || ev.Category != CategoryEnvironment {
		t.Fatalf("malformed metric must be error, got %s %q", ev.Verdict, ev.Message)
	}
	ev = execOne(t, root, metricContract("echo 99; exit 4", "{type: regex, pattern: \"([0-9]+)\"}", "{operator: gte, value: 85}"), "m", nil)
	if ev.Verdict != Fail || ev.Value != nil {
		t.Fatalf("failing command must not be parsed, got %s %v", ev.Verdict, ev.Value)
	}
	if _, err := LoadContract([]byte(metricContract("true", "{type: json, source: file, file: ../cov.json, path: a}", "{operator: gt, value: 1}"))); err == nil {
		t.Fatal("contract accepted an escaping metric file")
	}
	outside := project(t, map[string]string{"secret.json": `{"a": 5}`})
	if err := os.Symlink(filepath.Join(outside, "secret.json"), filepath.Join(root, "link.json")); err != nil {
		t.Fatal(err)
	}
	ev = execOne(t, root, metricContract("true", "{type: json, source: file, file: link.json, path: a}", "{operator: gt, value: 1}"), "m", nil)
	if ev.Verdict != Error || ev.Value != nil {
		t.Fatalf("metric file escaping through a symlink accepted: %s", ev.Verdict)
	}
}

func TestRatchetRunner(t *testing.T) {
	contract := "constraints:\n  lint:\n    kind: ratchet\n    shell: true\n    command: echo warnings 7\n    parser: {type: regex, pattern: 'warnings (\\d+)'}\n"
	for _, tc := range []struct {
		baseline string
		want     Verdict
	}{
		{`{"schema_version":1,"ratchets":{"lint":{"value":9,"updated_at":"2026-01-01T00:00:00Z"}}}`, Pass},
		{`{"schema_version":1,"ratchets":{"lint":7}}`, Pass},
		{`{"schema_version":1,"ratchets":{"lint":5}}`, Fail},
		{`{"schema_version":1,"ratchets":{}}`, Error},
		{`{"schema_version":1,"ratchets":{"lint":"5"}}`, Error},
		{`not json`, Error},
	} {
		root := project(t, map[string]string{"constraintloop-baselines.json": tc.baseline})
		ev := execOne(t, root, contract, "lint", nil)
		if ev.Verdict != tc.want {
			t.Errorf("%s: got %s %q", tc.baseline, ev.Verdict, ev.Message)
		}
	}
	root := project(t, map[string]string{"constraintloop-baselines.json": `{"schema_version":1,"ratchets":{"lint":9}}`})
	ev := execOne(t, root, contract+"    mode: must_not_decrease\n", "lint", nil)
	if ev.Verdict != Fail || *ev.Delta != -2 {
		t.Fatalf("must_not_decrease: %s %v", ev.Verdict, ev.Delta)
	}
	if ev := execOne(t, project(t, nil), contract, "lint", nil); ev.Verdict != Error || ev.Category != CategoryEnvironment {
		t.Fatalf("missing baseline: %s", ev.Verdict)
	}
}

func TestArtifactRunner(t *testing.T) {
	root := project(t, map[string]string{
		"r.json": `{"summary":{"passed":10,"password":"x"}}`, "bad.json": `{"a":`, "empty.txt": "",
		"j.xml": `<testsuite><testcase name="a"/></testsuite>`, "bad.xml": `<testsuite>`,
	})
	cases := []struct {
		spec string
		want Verdict
	}{
		{"{kind: artifact, path: r.json, format: json, evidence: {passed: summary.passed}}", Pass},
		{"{kind: artifact, path: r.json, format: json, evidence: {x: summary.nope}}", Fail},
		{"{kind: artifact, path: bad.json, format: json}", Fail},
		{"{kind: artifact, path: empty.txt}", Fail},
		{"{kind: artifact, path: empty.txt, non_empty: false}", Pass},
		{"{kind: artifact, path: missing.txt}", Fail},
		{"{kind: artifact, path: j.xml, format: junit}", Pass},
		{"{kind: artifact, path: bad.xml, format: junit}", Fail},
	}
	for _, tc := range cases {
		ev := execOne(t, root, "constraints:\n  a: "+tc.spec+"\n", "a", nil)
		if ev.Verdict != tc.want {
			t.Errorf("%s: got %s %q", tc.spec, ev.Verdict, ev.Message)
		}
		if tc.want == Pass && strings.Contains(tc.spec, "evidence") && ev.Details["passed"] != "10" {
			t.Errorf("evidence details %v", ev.Details)
		}
	}
}

func TestEvidenceJSONIsCanonical(t *testing.T) {
	ev := &Evidence{ConstraintID: "c", Kind: KindCommand, Enforcement: Required, Verdict: Fail, Output: []byte("a\xffb"), ExitCode: intPtr(1)}
	b, err := objects.CanonV3(ev.JSON())
	if err != nil || !strings.Contains(string(b), `"exit_code":1`) || !strings.Contains(string(b), "a\uFFFDb") {
		t.Fatalf("%s %v", b, err)
	}
}
