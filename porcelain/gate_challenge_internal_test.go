package porcelain

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
