package gate

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// fakeEvaluator answers run N with line N of answers ("EXIT" exits 3),
// and keeps the bundle it was sent.
const fakeEvaluator = `#!/bin/sh
cat > bundle.json
n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count
line=$(sed -n "${n}p" answers)
if [ "$line" = EXIT ]; then echo "evaluator broke" >&2; exit 3; fi
printf '%s\n' "$line"
`

func rubricContract(runs, quorum int, enforcement string) string {
	return "constraints:\n  review:\n    kind: rubric\n    enforcement: " + enforcement +
		"\n    evaluator: fake\n    rubric: Check the parser handles errors.\n    include: ['src/**']\n    runs: " +
		itoa(runs) + "\n    pass_quorum: " + itoa(quorum) + "\nevaluators:\n  fake: {type: command, command: [./eval.sh]}\n"
}

func itoa(i int) string { return strconv.Itoa(i) }

const (
	ansPass = `{"verdict":"pass","score":0.9,"rationale":"fine","findings":[]}`
	ansFail = `{"verdict":"fail","rationale":"bad","findings":[{"message":"no error path","file_path":"src/parser.go","line":3}]}`
	ansEnv  = `{"schema_version":1,"result":{"verdict":"pass","rationale":"ok"},"metadata":{"provider":"fake","model":"m","status":"completed","attempts":1}}`
	ansUnc  = `{"verdict":"uncertain","rationale":"unsure"}`
)

func TestRubricQuorum(t *testing.T) {
	cases := []struct {
		name          string
		runs, quorum  int
		answers       []string
		want          Verdict
		passes, fails int
	}{
		{"2 of 3 pass", 3, 2, []string{ansPass, ansFail, ansEnv}, Pass, 2, 1},
		{"tie is not a pass", 2, 2, []string{ansPass, ansFail}, Fail, 1, 1},
		{"1 of 3", 3, 2, []string{ansFail, ansPass, ansFail}, Fail, 1, 2},
		{"error without quorum is uncertain", 3, 2, []string{ansPass, "EXIT", ansFail}, Uncertain, 1, 1},
		{"malformed is never a pass", 3, 2, []string{ansPass, `{"verdict":"pass","rationale":"x","extra":1}`, "not json"}, Uncertain, 1, 0},
		{"uncertain run", 3, 2, []string{ansPass, ansUnc, ansFail}, Uncertain, 1, 1},
		{"quorum reached despite an error", 3, 2, []string{ansPass, "EXIT", ansPass}, Pass, 2, 0},
	}
	for _, tc := range cases {
		root := project(t, map[string]string{"eval.sh": fakeEvaluator, "answers": strings.Join(tc.answers, "\n") + "\n",
			"src/parser.go": "package parser\n", "src/.env": "TOKEN=abc\n"})
		ev := execOne(t, root, rubricContract(tc.runs, tc.quorum, "required"), "review", []string{"PATH=/usr/bin:/bin"})
		if ev.Verdict != tc.want || len(ev.Runs) != tc.runs {
			t.Errorf("%s: got %s (%d runs) %q", tc.name, ev.Verdict, len(ev.Runs), ev.Message)
			continue
		}
		var p, f int
		for _, r := range ev.Runs {
			p += boolRank(r.Verdict == Pass)
			f += boolRank(r.Verdict == Fail)
		}
		if p != tc.passes || f != tc.fails {
			t.Errorf("%s: %d passes %d fails", tc.name, p, f)
		}
		if tc.name == "2 of 3 pass" {
			checkBundle(t, root, ev)
		}
	}
}

func checkBundle(t *testing.T, root string, ev *Evidence) {
	t.Helper()
	if len(ev.Findings) != 1 || ev.Findings[0].FilePath != "src/parser.go" || ev.Runs[2].Metadata == "" {
		t.Fatalf("findings %+v metadata %q", ev.Findings, ev.Runs[2].Metadata)
	}
	raw, err := os.ReadFile(filepath.Join(root, "bundle.json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := objects.ParseJSON(raw, objects.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := v.Get("files")
	if _, ok := files.Get("src/parser.go"); !ok {
		t.Fatalf("bundle lacks the included file: %s", raw)
	}
	if _, ok := files.Get("src/.env"); ok {
		t.Fatal("bundle disclosed a secret file")
	}
	omitted, _ := v.Get("omitted_files")
	if len(omitted.Array) != 1 || omitted.Array[0].Str != "src/.env" {
		t.Fatalf("omitted %v", omitted)
	}
}

func TestParseEvaluatorResponse(t *testing.T) {
	good := []string{ansPass, ansEnv, "```json\n" + ansFail + "\n```"}
	for _, g := range good {
		if _, err := ParseEvaluatorResponse([]byte(g)); err != nil {
			t.Errorf("%s: %v", g, err)
		}
	}
	bad := []string{
		`{"verdict":"PASS","rationale":"x"}`, `{"verdict":"pass"}`, `{"verdict":"pass","rationale":"x","score":1.5}`,
		`{"verdict":"pass","rationale":"x","findings":[{"line":0,"message":"m"}]}`, `[]`, ``,
		`{"schema_version":2,"result":{"verdict":"pass","rationale":"x"}}`,
		`{"schema_version":1,"result":{"verdict":"pass","rationale":"x"},"metadata":{"provider":"p","attempts":0}}`,
		`{"verdict":"pass","rationale":"x","verdict":"fail"}`,
	}
	for _, b := range bad {
		if _, err := ParseEvaluatorResponse([]byte(b)); err == nil {
			t.Errorf("accepted %s", b)
		}
	}
}
