package gates

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tinehq/tine/gate"
)

// A ledger grown past what loadJournal reads back is refused at write
// time, so the loop never halts on a journal tine wrote itself.
func TestSaveJournalRefusesUnreadableSize(t *testing.T) {
	dir := t.TempDir()
	j := &loopJournal{SchemaVersion: 1, Loop: "fix", StartedAt: 1, UpdatedAt: 1, Challenge: gate.NewChallengeLedger("r", "i")}
	if err := saveJournal(dir, j); err != nil {
		t.Fatal(err)
	}
	j.Challenge.DomainBriefs = []gate.DomainBrief{{Topic: "t", Summary: strings.Repeat("x", maxJournalBytes), DomainSources: []string{"a"}}}
	if err := saveJournal(dir, j); err == nil || !strings.Contains(err.Error(), "would exceed") {
		t.Fatalf("oversized journal: %v", err)
	}
	back, err := loadJournal(dir, "fix")
	if err != nil || back == nil || len(back.Challenge.DomainBriefs) != 0 {
		t.Fatalf("the readable journal was replaced: %v", err)
	}
	if _, err := os.Stat(journalPath(dir, "fix")); errors.Is(err, os.ErrNotExist) {
		t.Fatal("journal removed")
	}
}

// Only enabled deterministic stop-phase constraints that passed unwaived
// may back a "verified" resolution: not a waived, failing, rubric, other
// phase or disabled one.
func TestVerifiableConstraints(t *testing.T) {
	c := &gate.Contract{Constraints: []*gate.Constraint{
		{ID: "ok", Kind: gate.KindCommand, Enabled: true, Phases: []gate.Phase{gate.PhaseStop}},
		{ID: "advisory_fail", Kind: gate.KindCommand, Enabled: true, Phases: []gate.Phase{gate.PhaseStop}},
		{ID: "waived", Kind: gate.KindCommand, Enabled: true, Phases: []gate.Phase{gate.PhaseStop}},
		{ID: "rubric", Kind: gate.KindRubric, Enabled: true, Phases: []gate.Phase{gate.PhaseStop}},
		{ID: "ci_only", Kind: gate.KindCommand, Enabled: true, Phases: []gate.Phase{gate.PhaseCI}},
		{ID: "off", Kind: gate.KindCommand, Enabled: false, Phases: []gate.Phase{gate.PhaseStop}},
	}}
	run := &GateRunResult{Results: []*GateResult{
		{ID: "ok", Verdict: string(gate.Pass)},
		{ID: "advisory_fail", Verdict: string(gate.Fail)},
		{ID: "waived", Verdict: string(gate.Pass), Waived: true},
		{ID: "rubric", Verdict: string(gate.Pass)},
		{ID: "ci_only", Verdict: string(gate.Pass)},
		{ID: "off", Verdict: string(gate.Pass)},
		{ID: "unknown", Verdict: string(gate.Pass)},
	}}
	if got := strings.Join(verifiableConstraints(c, run), ","); got != "ok" {
		t.Fatalf("verifiable %q, want ok", got)
	}
}
