package gate

import (
	"slices"
	"strings"
	"testing"
)

func res(id string, e Enforcement, v Verdict, blockedBy ...string) *Evidence {
	return &Evidence{ConstraintID: id, Kind: KindCommand, Enforcement: e, Verdict: v, BlockedBy: blockedBy}
}

func TestBlocksTable(t *testing.T) {
	for _, v := range Verdicts {
		wantReq := !(v == Pass || v == Skipped || v == Waived)
		if Blocks(Required, v) != wantReq || Blocks(Advisory, v) {
			t.Errorf("%s: required %v advisory %v", v, Blocks(Required, v), Blocks(Advisory, v))
		}
	}
	if !Blocks(Advisory, "maybe") || !Blocks("", Pass) || !Blocks(Required, "") {
		t.Fatal("unknown verdict or enforcement must block")
	}
}

func TestDecide(t *testing.T) {
	cases := []struct {
		name    string
		results []*Evidence
		outcome string
		exit    int
		waiting bool
		roots   string
	}{
		{"all pass", []*Evidence{res("a", Required, Pass), res("b", Required, Waived), res("c", Required, Skipped)}, OutcomePass, 0, false, ""},
		{"advisory fail", []*Evidence{res("a", Required, Pass), res("b", Advisory, Fail)}, OutcomePassWithAdvisories, 0, false, ""},
		{"required fail", []*Evidence{res("a", Required, Fail)}, OutcomeBlocked, 1, false, "a"},
		{"pending only waits", []*Evidence{res("a", Required, Pending), res("b", Required, Pending, "a")}, OutcomeBlocked, 1, true, "a"},
		{"error", []*Evidence{res("a", Required, Error)}, OutcomeBlocked, 1, false, "a"},
		{"uncertain", []*Evidence{res("a", Required, Uncertain)}, OutcomeBlocked, 1, false, "a"},
		{"root cause through chain", []*Evidence{res("lint", Advisory, Fail), res("build", Required, Fail, "lint"), res("test", Required, Fail, "build")}, OutcomeBlocked, 1, false, "lint"},
		{"nil result fails closed", []*Evidence{nil}, OutcomeBlocked, 1, false, ""},
	}
	for _, tc := range cases {
		d := Decide(PhaseStop, tc.results)
		if d.Outcome != tc.outcome || d.ExitCode != tc.exit || d.Waiting != tc.waiting || strings.Join(d.RootCauses, ",") != tc.roots {
			t.Errorf("%s: got %+v", tc.name, d)
		}
	}
	if d := Decide("nope", nil); d.Passed || d.ExitCode != ExitBlocked {
		t.Fatal("unknown phase passed")
	}
}

func TestDecidePlanMissingResult(t *testing.T) {
	c := mustLoad(t, "constraints:\n  a: {kind: command, command: [x]}\n  b: {kind: command, command: [x]}\n")
	plan, _ := Plan(c, PhaseCI)
	d := DecidePlan(PhaseCI, plan, []*Evidence{res("a", Required, Pass)})
	if d.Passed || !slices.Equal(d.Blocking, []string{"b"}) {
		t.Fatalf("got %+v", d)
	}
}

func TestDependencyResult(t *testing.T) {
	c := mustLoad(t, "constraints:\n  a: {kind: command, command: [x]}\n  b: {kind: command, command: [x]}\n  d: {kind: command, command: [x], needs: [a, b]}\n").Constraint("d")
	cases := []struct {
		a, b Verdict
		want Verdict
	}{
		{Pass, Waived, ""}, {Pending, Fail, Pending}, {Fail, Fail, Fail}, {Fail, Error, Error}, {Pass, Uncertain, Error}, {Skipped, Pass, Error},
	}
	for _, tc := range cases {
		got := DependencyResult(c, map[string]*Evidence{"a": res("a", Required, tc.a), "b": res("b", Required, tc.b)}, "")
		if tc.want == "" {
			if got != nil {
				t.Errorf("%s,%s: blocked %s", tc.a, tc.b, got.Verdict)
			}
			continue
		}
		if got == nil || got.Verdict != tc.want || len(got.BlockedBy) == 0 {
			t.Errorf("%s,%s: got %+v, want %s", tc.a, tc.b, got, tc.want)
		}
	}
	if got := DependencyResult(c, map[string]*Evidence{"a": res("a", Required, Pass)}, ""); got == nil || got.Verdict != Error || got.BlockedBy[0] != "b" {
		t.Fatalf("missing dependency result: %+v", got)
	}
}
