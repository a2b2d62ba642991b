package conformance

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateReport = flag.String("update-report", "", "write the conformance scorecard JSON to this file")

// suiteDir is the verbatim copy of OpenTine's docs/conformance.
var suiteDir = filepath.Join("..", "..", "testdata", "conformance")

// requiredFamilies must pass completely at Level 2. Every family of the
// suite is here except 51-compat, whose fixtures (OpenTine's
// tests/fixtures/compat) are not part of the published conformance data.
var requiredFamilies = []string{
	"00-text", "01-selftest", "02-canon-v3", "03-canon-v2", "04-divergence", "05-shape",
	"12-envelope", "13-oid", "14-redaction", "15-links", "15b-metrics", "15c-graph", "15d-load",
	"16-bounds", "22-layout", "24-refs", "26-reflog", "27-shallow", "28-pack",
	"31-artifact-v2", "35-integrity", "42-signing", "47-verdict", "99-repair",
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
// FAIL or REPAIRED result, and on any case of a required family that does
// not pass.
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
	for _, f := range requiredFamilies {
		required[f] = true
	}
	for _, res := range rep.Results {
		if res.Status == StatusFail || res.Status == StatusRepaired {
			t.Errorf("%s %s [%s] %s: %s", strings.ToUpper(res.Status), res.ID, res.Op, res.Family, res.Detail)
			continue
		}
		if required[res.Family] && res.Status != StatusPass {
			t.Errorf("required case %s [%s] is %s, want pass: %s", res.ID, res.Op, res.Status, res.Detail)
		}
	}
	if rep.Totals.Pass+rep.Totals.Fail+rep.Totals.Repaired+rep.Totals.Skip+rep.Totals.Unsupported != len(s.Cases) {
		t.Errorf("report covers %d results, suite has %d cases", len(rep.Results), len(s.Cases))
	}
}
