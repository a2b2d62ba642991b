package gate

import (
	"errors"
	"strings"
	"testing"
)

const digestA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
const digestB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

func waiverContract(t *testing.T) *Contract {
	return mustLoad(t, "constraints:\n  t: {kind: command, command: [x]}\n  adv: {kind: command, command: [x], enforcement: advisory}\n"+
		"  r: {kind: rubric, enforcement: advisory, evaluator: e, rubric: x}\nevaluators:\n  e: {type: command, command: [x]}\n")
}

func failed(id string, e Enforcement, digest string) *Evidence {
	return &Evidence{ConstraintID: id, Kind: KindCommand, Enforcement: e, Verdict: Fail, InputDigest: digest, Output: []byte("FAIL x"), Message: "Command exited with code 1"}
}

func TestWaiverValidity(t *testing.T) {
	c := waiverContract(t)
	tc := c.Constraint("t")
	ev := failed("t", Required, digestA)
	w, err := NewWaiver(c, "t", ev, digestA, "flaky upstream, tracked in #12")
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := WaiverApplies(PhaseStop, c, tc, ev, digestA, w); !ok {
		t.Fatalf("valid waiver refused: %s", why)
	}
	if got := Waive(PhaseChange, c, tc, ev, digestA, w); got == nil || got.Verdict != Waived || !strings.Contains(got.Message, "#12") || ev.Verdict != Fail {
		t.Fatalf("waive: %+v (original %s)", got, ev.Verdict)
	}
	// Timing does not matter; output does.
	timed := *ev
	timed.Duration = 12345
	if ok, _ := WaiverApplies(PhaseStop, c, tc, &timed, digestA, w); !ok {
		t.Fatal("timing voided the waiver")
	}
	changedOut := *ev
	changedOut.Output = []byte("FAIL y")
	later := *ev
	later.InputDigest = digestB
	edited := waiverContract(t)
	edited.Digest = digestB
	void := []struct {
		name  string
		phase Phase
		con   *Contract
		ev    *Evidence
		cur   string
	}{
		{"ci ignores waivers", PhaseCI, c, ev, digestA},
		{"push ignores waivers", PhasePush, c, ev, digestA},
		{"inputs changed", PhaseStop, c, &later, digestB},
		{"stale evidence", PhaseStop, c, ev, digestB},
		{"output changed", PhaseStop, c, &changedOut, digestA},
		{"contract changed", PhaseStop, edited, ev, digestA},
	}
	for _, v := range void {
		if ok, _ := WaiverApplies(v.phase, v.con, tc, v.ev, v.cur, w); ok {
			t.Errorf("%s: waiver still applies", v.name)
		}
	}
}

func TestWaiverCreationRules(t *testing.T) {
	c := waiverContract(t)
	cases := []struct {
		id, reason, cur string
		ev              *Evidence
	}{
		{"zz", "r", digestA, failed("zz", Required, digestA)},
		{"r", "r", digestA, &Evidence{ConstraintID: "r", Kind: KindRubric, Verdict: Fail, InputDigest: digestA}},
		{"t", "  ", digestA, failed("t", Required, digestA)},
		{"t", "r", digestB, failed("t", Required, digestA)},
		{"t", "r", digestA, nil},
		{"t", "r", digestA, &Evidence{ConstraintID: "t", Kind: KindCommand, Verdict: Pass, InputDigest: digestA}},
	}
	for i, tc := range cases {
		if _, err := NewWaiver(c, tc.id, tc.ev, tc.cur, tc.reason); !errors.Is(err, ErrNotWaivable) {
			t.Errorf("case %d: got %v", i, err)
		}
	}
}

func TestAcknowledgement(t *testing.T) {
	c := waiverContract(t)
	ev := failed("adv", Advisory, digestA)
	a, err := NewAcknowledgement(c, "adv", ev, digestA, "known slow path")
	if err != nil || !a.Covers(ev) {
		t.Fatalf("ack: %v", err)
	}
	other := *ev
	other.Message = "Command exited with code 2"
	if a.Covers(&other) {
		t.Fatal("acknowledgement covers different evidence")
	}
	if _, err := NewAcknowledgement(c, "t", failed("t", Required, digestA), digestA, "x"); !errors.Is(err, ErrNotAcknowledgeable) {
		t.Fatalf("required constraint acknowledged: %v", err)
	}
}

func TestReusable(t *testing.T) {
	c := waiverContract(t)
	tc := c.Constraint("t")
	ev := failed("t", Required, digestA)
	if ok, why := Reusable(PhaseStop, tc, ev, digestA, ReuseOptions{}); !ok {
		t.Fatalf("fresh evidence not reusable: %s", why)
	}
	if !Fresh(tc, digestA, digestA) || Fresh(tc, digestA, digestB) || Fresh(tc, "", "") {
		t.Fatal("Fresh")
	}
	env := *ev
	env.Category = CategoryEnvironment
	pend := *ev
	pend.Verdict = Pending
	adv := *ev
	adv.Enforcement = Advisory
	for name, tcase := range map[string]struct {
		phase Phase
		ev    *Evidence
		opt   ReuseOptions
		cur   string
	}{
		"ci":          {PhaseCI, ev, ReuseOptions{}, digestA},
		"no-cache":    {PhaseStop, ev, ReuseOptions{NoCache: true}, digestA},
		"stale":       {PhaseStop, ev, ReuseOptions{}, digestB},
		"environment": {PhaseStop, &env, ReuseOptions{}, digestA},
		"pending":     {PhaseStop, &pend, ReuseOptions{RefreshPending: true}, digestA},
		"enforcement": {PhaseStop, &adv, ReuseOptions{}, digestA},
	} {
		if ok, _ := Reusable(tcase.phase, tc, tcase.ev, tcase.cur, tcase.opt); ok {
			t.Errorf("%s: reused", name)
		}
	}
}
