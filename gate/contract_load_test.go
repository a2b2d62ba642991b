package gate

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func mustLoad(t *testing.T, src string) *Contract {
	t.Helper()
	c, err := LoadContract([]byte(src))
	if err != nil {
		t.Fatalf("LoadContract: %v", err)
	}
	return c
}

func TestLoadSampleContract(t *testing.T) {
	data, err := os.ReadFile("testdata/constraintloop.yml")
	if err != nil {
		t.Fatal(err)
	}
	c := mustLoad(t, string(data))
	if len(c.Constraints) != 3 || len(c.Evaluators) != 1 {
		t.Fatalf("got %d constraints, %d evaluators", len(c.Constraints), len(c.Evaluators))
	}
	cov := c.Constraint("coverage")
	if cov.Kind != KindMetric || cov.Parser.Source != "file" || cov.Parser.Path != "totals.percent_covered" ||
		cov.Threshold.Operator != "gte" || cov.Threshold.Value != 85 || cov.Needs[0] != "tests" {
		t.Fatalf("coverage parsed wrong: %+v %+v %+v", cov, cov.Parser, cov.Threshold)
	}
	if cov.TimeoutSeconds != 300 || cov.Enforcement != Required || cov.Command.PendingCodes[0] != 75 {
		t.Fatalf("defaults not applied: %+v", cov)
	}
	if dr := c.Constraint("design_review"); dr.Enforcement != Advisory || dr.Rubric.Quorum() != 1 {
		t.Fatalf("rubric parsed wrong: %+v", dr.Rubric)
	}
	if len(c.Digest) != 64 {
		t.Fatalf("digest %q", c.Digest)
	}
	plan, err := Plan(c, PhaseStop)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, k := range plan {
		ids = append(ids, k.ID)
	}
	if got := strings.Join(ids, ","); got != "design_review,tests,coverage" {
		t.Fatalf("plan order %s", got)
	}
	// Any edit changes the contract identity; reformatting does not.
	again := mustLoad(t, strings.ReplaceAll(string(data), "phases: [stop, ci]", "phases:\n      - stop\n      - ci"))
	if again.Digest != c.Digest {
		t.Fatal("reformatting changed the contract digest")
	}
	edited := mustLoad(t, strings.Replace(string(data), "value: 85", "value: 86", 1))
	if edited.Digest == c.Digest {
		t.Fatal("an edit kept the contract digest")
	}
}

const base = "version: 1\nconstraints:\n  a:\n    kind: command\n    command: [\"true\"]\n"

func TestUnknownKeysHaveLineNumbers(t *testing.T) {
	cases := []struct{ src, want string }{
		{"version: 1\nbogus: 2\nconstraints: {}\n", "line 2: unknown key bogus in contract"},
		{"settings:\n  concurrency: 2\n  colour: red\nconstraints: {}\n", "line 3: unknown key colour in settings"},
		{base + "    bogus: 1\n", "line 6: unknown key bogus in constraint a"},
		{"constraints:\n  m:\n    kind: metric\n    command: [x]\n    parser: {type: json, path: a, extra: 1}\n    threshold: {operator: gt, value: 1}\n", "line 5: unknown key extra in constraint m parser"},
		{"constraints:\n  m:\n    kind: metric\n    command: [x]\n    parser: {type: json, path: a}\n    threshold:\n      operator: gt\n      value: 1\n      unit: pct\n", "line 9: unknown key unit in constraint m threshold"},
		{base + "    retry:\n      max_attempts: 3\n      backoff: 2\n", "line 8: unknown key backoff in constraint a retry"},
		{base + "    threshold: {operator: gt, value: 1}\n", "line 6: unknown key threshold in constraint a"},
		{"constraints:\n  f:\n    kind: artifact\n    path: out.json\n    command: [x]\n", "line 5: unknown key command in constraint f"},
		{"constraints: {}\nevaluators:\n  e:\n    type: command\n    command: [x]\n    model: m\n", "line 6: unknown key model in evaluator e"},
		{base + "loops:\n  l:\n    phase: stop\n    interval_seconds: 1\n    max_repair_attempts: 1\n    max_unchanged_repairs: 1\n    max_duration_seconds: 10\n    speed: 2\n", "line 13: unknown key speed in loop l"},
	}
	for _, tc := range cases {
		_, err := LoadContract([]byte(tc.src))
		if err == nil || !errors.Is(err, ErrContract) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
}

func TestContractRefusals(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"cycle", "constraints:\n  a: {kind: command, command: [x], needs: [b]}\n  b: {kind: command, command: [x], needs: [c]}\n  c: {kind: command, command: [x], needs: [a]}\n", "needs form a cycle: a -> b -> c -> a"},
		{"self cycle", "constraints:\n  a: {kind: command, command: [x], needs: [a]}\n", "a -> a"},
		{"unknown need", "constraints:\n  a: {kind: command, command: [x], needs: [zz]}\n", "needs unknown constraint zz"},
		{"need not in every phase", "constraints:\n  a: {kind: command, command: [x], phases: [stop]}\n  b: {kind: command, command: [x], phases: [stop, ci], needs: [a]}\n", "line 3: constraint b runs in phase ci but its need a does not"},
		{"disabled need", "constraints:\n  a: {kind: command, command: [x], enabled: false}\n  b: {kind: command, command: [x], needs: [a]}\n", "needs disabled constraint a"},
		{"duplicate key", base + "    shell: false\n    shell: true\n", "line 7: duplicate key shell in constraint a"},
		{"alias", "x: &anchor {kind: command}\nconstraints:\n  a: *anchor\n", "anchors and aliases are not allowed"},
		{"string needs shell", "constraints:\n  a: {kind: command, command: make test}\n", "requires shell: true"},
		{"required rubric one run", "constraints:\n  r: {kind: rubric, evaluator: e, rubric: x}\nevaluators:\n  e: {type: command, command: [x]}\n", "a required rubric needs runs >= 2"},
		{"required rubric no majority", "constraints:\n  r: {kind: rubric, evaluator: e, rubric: x, runs: 4, pass_quorum: 2}\nevaluators:\n  e: {type: command, command: [x]}\n", "strict majority"},
		{"unknown evaluator", "constraints:\n  r: {kind: rubric, evaluator: nope, rubric: x, enforcement: advisory}\n", "unknown evaluator nope"},
		{"bad timeout", base + "    timeout_seconds: 0\n", "timeout_seconds in constraint a must be in (0, 7200]"},
		{"overlapping codes", base + "    pending_codes: [0]\n", "overlap"},
		{"watch escapes", base + "    watch: [../x]\n", "has a .. part"},
		{"bad kind", "constraints:\n  a: {kind: shellscript}\n", "kind in constraint a must be one of"},
		{"bad id", "constraints:\n  'a b': {kind: command, command: [x]}\n", "constraint id \"a b\""},
		{"threshold bool", "constraints:\n  m: {kind: metric, command: [x], parser: {type: json, path: a}, threshold: {operator: gt, value: true}}\n", "must be a finite number"},
		{"regex group missing", "constraints:\n  m: {kind: metric, command: [x], parser: {type: regex, pattern: 'x(\\d+)', group: 2}, threshold: {operator: gt, value: 1}}\n", "no group 2"},
		{"two docs", base + "---\nversion: 1\n", "single YAML document"},
		{"empty", "", "contract is empty"},
		{"not a mapping", "- a\n", "contract must be a mapping"},
		{"malformed", "constraints: [\n", "malformed YAML"},
		{"no constraints", "version: 1\n", "no constraints mapping"},
		{"version 2", "version: 2\nconstraints: {}\n", "version in contract must be an integer from 1 to 1"},
		{"challenge outside stop", base + "loops:\n  l: {phase: ci, interval_seconds: 1, max_repair_attempts: 1, max_unchanged_repairs: 1, max_duration_seconds: 5, challenge: {}}\n", "challenge is only allowed when phase is stop"},
	}
	for _, tc := range cases {
		_, err := LoadContract([]byte(tc.src))
		if err == nil || !errors.Is(err, ErrContract) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: want %q, got %v", tc.name, tc.want, err)
		}
	}
}

func TestContractSizeCapAndBillionLaughs(t *testing.T) {
	big := base + "    description: \"" + strings.Repeat("x", MaxContractBytes) + "\"\n"
	if _, err := LoadContract([]byte(big)); err == nil || !strings.Contains(err.Error(), "byte limit") {
		t.Fatalf("oversized contract: %v", err)
	}
	laughs := "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b]\nconstraints: {}\n"
	if _, err := LoadContract([]byte(laughs)); err == nil || !strings.Contains(err.Error(), "anchors") {
		t.Fatalf("alias bomb: %v", err)
	}
}

func TestYAML11BooleansAndNumericThreshold(t *testing.T) {
	c := mustLoad(t, "constraints:\n  m:\n    kind: metric\n    enabled: yes\n    command: [x]\n    parser: {type: regex, pattern: 'cov (?P<pct>[0-9.]+)', group: pct}\n    threshold: {operator: gte, value: \"85.5\"}\n")
	m := c.Constraint("m")
	if !m.Enabled || m.Threshold.Value != 85.5 || m.Parser.GroupName != "pct" {
		t.Fatalf("got %+v %+v", m, m.Threshold)
	}
}

func TestWavesPutNeedsFirst(t *testing.T) {
	c := mustLoad(t, "constraints:\n  z: {kind: command, command: [x]}\n  y: {kind: command, command: [x], needs: [z]}\n  x: {kind: command, command: [x], needs: [y, z]}\n  w: {kind: command, command: [x], phases: [ci]}\n")
	waves, err := Waves(c, PhaseStop)
	if err != nil {
		t.Fatal(err)
	}
	if len(waves) != 3 || waves[0][0].ID != "z" || waves[1][0].ID != "y" || waves[2][0].ID != "x" {
		t.Fatalf("waves %v", waves)
	}
	if _, err := Plan(c, Phase("later")); err == nil {
		t.Fatal("unknown phase planned")
	}
}

func FuzzLoadContract(f *testing.F) {
	if data, err := os.ReadFile("testdata/constraintloop.yml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(base))
	f.Add([]byte("a: &a [x]\nb: *a\n"))
	f.Add([]byte("constraints:\n  a: {kind: rubric, runs: 3, pass_quorum: 2, evaluator: e, rubric: r}\nevaluators: {e: {type: command, command: [x]}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := LoadContract(data)
		if err == nil {
			if c.Digest == "" {
				t.Fatal("valid contract without digest")
			}
			for _, p := range Phases {
				if _, err := Plan(c, p); err != nil {
					t.Fatalf("valid contract does not plan: %v", err)
				}
			}
		}
	})
}

// TestContractName checks the optional top-level name: loaded, bound by
// the digest when given, absent without changing an unnamed contract's
// digest, and validated like an identifier.
func TestContractName(t *testing.T) {
	const body = "constraints:\n  tests:\n    kind: command\n    command: [\"true\"]\n"
	plain := mustLoad(t, "version: 1\n"+body)
	named := mustLoad(t, "version: 1\nname: ci\n"+body)
	other := mustLoad(t, "version: 1\nname: release\n"+body)
	if plain.Name != "" || named.Name != "ci" {
		t.Fatalf("names %q %q", plain.Name, named.Name)
	}
	if plain.Digest == named.Digest || named.Digest == other.Digest {
		t.Fatal("the name is not bound by the contract digest")
	}
	if again := mustLoad(t, body); again.Digest != plain.Digest {
		t.Fatal("an unnamed contract's digest changed")
	}
	for _, bad := range []string{"name: ''\n", "name: 'a b'\n", "name: [x]\n", "name: " + strings.Repeat("a", MaxContractName+1) + "\n"} {
		if _, err := LoadContract([]byte(bad + body)); !errors.Is(err, ErrContract) || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v, want a contract error at line 1", bad, err)
		}
	}
}
