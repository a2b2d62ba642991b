package conformance

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var updateReport = flag.String("update-report", "", "write the conformance scorecard JSON to this file")

// suiteDir is the verbatim copy of OpenTine's docs/conformance.
var suiteDir = filepath.Join("..", "..", "testdata", "conformance")

// issue2Families must pass completely at Level 2: every case whose op is
// not owned by a later issue (laterIssueOp) passes.
var issue2Families = []string{
	"00-text", "01-selftest", "02-canon-v3", "03-canon-v2", "04-divergence", "05-shape",
	"12-envelope", "13-oid", "14-redaction", "15-links", "15b-metrics", "15c-graph", "15d-load",
	"16-bounds", "22-layout", "24-refs", "26-reflog", "27-shallow", "28-pack", "99-repair",
}

// laterIssueOp reports ops implemented by later issues (.tine artifacts,
// integrity, signing, attestation); their cases may be unsupported even
// inside the required families. Redaction (redact.*, object.put) and
// TINEPACK3 frames (pack.*) are implemented and required.
func laterIssueOp(op string) bool {
	for _, p := range []string{"artifact.", "integrity.", "sig.", "attest."} {
		if strings.HasPrefix(op, p) {
			return true
		}
	}
	return false
}

// capabilities the in-process run declares.
var capabilities = []string{"wtf8", "zlib", "ed25519"}

func loadSuite(t *testing.T) *Suite {
	t.Helper()
	s, err := LoadSuite(suiteDir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSuiteData checks the copied suite is the published one: every file it
// holds matches MANIFEST.files, and only the files deliberately not copied
// are missing.
func TestSuiteData(t *testing.T) {
	s := loadSuite(t)
	check, err := s.VerifyDigests()
	if err != nil {
		t.Fatal(err)
	}
	if len(check.Mismatched) > 0 {
		t.Errorf("files differ from MANIFEST.json: %v", check.Mismatched)
	}
	notCopied := map[string]bool{"PROTOCOL.md": true, "README.md": true, "SPEC_NOTES.md": true, "run_conformance.py": true}
	for _, name := range check.Missing {
		if !notCopied[name] && !strings.HasPrefix(name, "tests/fixtures/compat/") {
			t.Errorf("suite file %s is missing", name)
		}
	}
	if len(s.Cases) != 523 {
		t.Errorf("loaded %d cases, the suite has 523", len(s.Cases))
	}
	if len(check.Verified) != 41 {
		t.Errorf("verified %d files, want 41", len(check.Verified))
	}
}

// TestConformance runs every vector in-process at Level 2. It fails on any
// FAIL or REPAIRED result, and on any issue-2 case that does not pass.
func TestConformance(t *testing.T) {
	s := loadSuite(t)
	r := &Runner{Suite: s, Adapter: NewHandler(), Level: 2, Capabilities: capabilities,
		CompatRoot: filepath.Join(suiteDir, "compat")}
	rep := r.Run()
	t.Log("\n" + rep.Table())
	if *updateReport != "" {
		b, err := rep.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*updateReport, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	required := map[string]bool{}
	for _, f := range issue2Families {
		required[f] = true
	}
	var deferred []string
	for _, res := range rep.Results {
		if res.Status == StatusFail || res.Status == StatusRepaired {
			t.Errorf("%s %s [%s] %s: %s", strings.ToUpper(res.Status), res.ID, res.Op, res.Family, res.Detail)
			continue
		}
		if !required[res.Family] {
			continue
		}
		if laterIssueOp(res.Op) {
			deferred = append(deferred, res.Family+"/"+res.ID+" ("+res.Op+", "+res.Status+")")
			continue
		}
		if res.Status != StatusPass {
			t.Errorf("issue-2 case %s [%s] is %s, want pass: %s", res.ID, res.Op, res.Status, res.Detail)
		}
	}
	sort.Strings(deferred)
	t.Logf("%d cases in issue-2 families belong to later-issue ops:\n  %s", len(deferred), strings.Join(deferred, "\n  "))
	if rep.Totals.Pass+rep.Totals.Fail+rep.Totals.Repaired+rep.Totals.Skip+rep.Totals.Unsupported != len(s.Cases) {
		t.Errorf("report covers %d results, suite has %d cases", len(rep.Results), len(s.Cases))
	}
}
