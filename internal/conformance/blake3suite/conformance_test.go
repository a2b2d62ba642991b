package blake3suite

import (
	"strings"
	"testing"

	"github.com/tinehq/tine/internal/conformance"
	"github.com/tinehq/tine/objects"
)

// TestBlake3Conformance runs tine's in-process adapter, in the blake3
// profile, over the committed blake3 suite at Level 2: every case passes
// except 51-compat's, whose OpenTine fixtures are not part of the suite and
// are skipped.
func TestBlake3Conformance(t *testing.T) {
	s, err := conformance.LoadSuite(dstDir)
	if err != nil {
		t.Fatal(err)
	}
	check, err := s.VerifyDigests()
	if err != nil {
		t.Fatal(err)
	}
	if len(check.Missing)+len(check.Mismatched) > 0 {
		t.Fatalf("MANIFEST.files: missing %v, mismatched %v", check.Missing, check.Mismatched)
	}
	r := &conformance.Runner{Suite: s, Adapter: &conformance.Handler{Algo: objects.BLAKE3}, Level: 2,
		Capabilities: []string{"wtf8", "zlib", "ed25519"}}
	rep := r.Run()
	t.Log("\n" + rep.Table())
	for _, res := range rep.Results {
		if res.Status == conformance.StatusPass || res.Family == "51-compat" && res.Status == conformance.StatusSkip {
			continue
		}
		t.Errorf("%s %s [%s] %s: %s", strings.ToUpper(res.Status), res.ID, res.Op, res.Family, res.Detail)
	}
	if len(rep.Results) != len(s.Cases) {
		t.Errorf("report covers %d results, suite has %d cases", len(rep.Results), len(s.Cases))
	}
}

// TestSha256HandlerRefusesBlake3Suite is the control: the sha256 adapter
// must fail the blake3 suite wherever the hash matters, or the suite would
// not be testing the profile at all.
func TestSha256HandlerRefusesBlake3Suite(t *testing.T) {
	s, err := conformance.LoadSuite(dstDir)
	if err != nil {
		t.Fatal(err)
	}
	r := &conformance.Runner{Suite: s, Adapter: conformance.NewHandler(), Level: 2,
		Capabilities: []string{"wtf8", "zlib", "ed25519"},
		Filter:       func(c conformance.Case) bool { return c.Family == "13-oid" || c.Family == "28-pack" }}
	rep := r.Run()
	t.Logf("sha256 adapter on the blake3 suite: %d pass, %d fail", rep.Totals.Pass, rep.Totals.Fail)
	if rep.Totals.Fail < 20 {
		t.Errorf("the sha256 adapter fails only %d cases of 13-oid and 28-pack in the blake3 suite", rep.Totals.Fail)
	}
}
