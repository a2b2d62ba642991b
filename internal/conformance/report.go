package conformance

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tinehq/tine/objects"
)

// Report is a scorecard in the shape of the suite's report.schema.json.
type Report struct {
	SuiteVersion    int            `json:"suite_version"`
	SpecVersion     string         `json:"spec_version"`
	Implementation  Implementation `json:"implementation"`
	Level           int            `json:"level"`
	Profiles        []string       `json:"profiles"`
	Tiers           []string       `json:"tiers"`
	Totals          Totals         `json:"totals"`
	Pairs           Pairs          `json:"pairs"`
	ReasonAgreement Agreement      `json:"reason_agreement"`
	Results         []Result       `json:"results"`
}

// Implementation names what was scored.
type Implementation struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Language string `json:"language"`
}

// Totals counts results by status.
type Totals struct {
	Pass        int `json:"pass"`
	Fail        int `json:"fail"`
	Repaired    int `json:"repaired"`
	Skip        int `json:"skip"`
	Unsupported int `json:"unsupported"`
}

// Pairs counts twin pairs whose two halves both passed: the column a
// blanket rejecter cannot score on.
type Pairs struct {
	Total  int `json:"total"`
	Passed int `json:"passed"`
}

// Agreement counts scored reject cases whose reason matched (alias groups
// included).
type Agreement struct {
	Total  int `json:"total"`
	Agreed int `json:"agreed"`
}

// Result is one scored case.
type Result struct {
	ID             string  `json:"id"`
	Op             string  `json:"op"`
	Section        string  `json:"section"`
	Family         string  `json:"family"`
	Status         string  `json:"status"`
	Expected       string  `json:"expected"`
	Actual         *string `json:"actual"`
	ReasonExpected *string `json:"reason_expected"`
	ReasonActual   *string `json:"reason_actual"`
	Detail         string  `json:"detail"`
}

func newReport(s *Suite, level int) *Report {
	return &Report{
		SuiteVersion:   s.Manifest.SuiteVersion,
		SpecVersion:    s.Manifest.SpecVersion,
		Implementation: Implementation{Name: "tine", Version: "dev", Language: "go"},
		Level:          level,
		Profiles:       []string{"reader", "verifier", "writer"},
		Tiers:          []string{"core", "stress"},
		Results:        []Result{},
	}
}

// finish applies the must_differ pair claims (a claim about two answers,
// which no single comparison can make) and computes the totals.
func (rep *Report) finish(cases []Case, outputs map[string]*objects.Value, groups [][]string) {
	byID := map[string]*Result{}
	for i := range rep.Results {
		byID[rep.Results[i].ID] = &rep.Results[i]
	}
	for _, c := range cases {
		res, ok := byID[c.ID]
		_, twinRan := outputs[c.Twin]
		if c.MustDiffer == nil || !ok || !twinRan || res.Status != StatusPass {
			continue
		}
		mine, theirs := outputs[c.ID], outputs[c.Twin]
		differ := theirs == nil || !objects.Equal(*mine, *theirs)
		if differ != *c.MustDiffer {
			res.Status = StatusFail
			verb := "agree"
			if differ {
				verb = "differ"
			}
			res.Detail = fmt.Sprintf("must_differ is %v against %s, but the two answers %s", *c.MustDiffer, c.Twin, verb)
		}
	}
	for _, c := range cases {
		if c.Twin == "" || byID[c.Twin] == nil || byID[c.ID] == nil {
			continue
		}
		rep.Pairs.Total++
		if byID[c.ID].Status == StatusPass && byID[c.Twin].Status == StatusPass {
			rep.Pairs.Passed++
		}
	}
	for _, res := range rep.Results {
		rep.Totals.add(res.Status)
		scored := res.Status == StatusPass || res.Status == StatusFail || res.Status == StatusRepaired
		if !scored || res.ReasonExpected == nil {
			continue
		}
		rep.ReasonAgreement.Total++
		if res.ReasonActual != nil && aliasClosure([]string{*res.ReasonExpected}, groups)[*res.ReasonActual] {
			rep.ReasonAgreement.Agreed++
		}
	}
}

func (t *Totals) add(status string) {
	switch status {
	case StatusPass:
		t.Pass++
	case StatusFail:
		t.Fail++
	case StatusRepaired:
		t.Repaired++
	case StatusSkip:
		t.Skip++
	case StatusUnsupported:
		t.Unsupported++
	}
}

// ByFamily returns the totals of each family, keyed by family Key.
func (rep *Report) ByFamily() map[string]Totals {
	out := map[string]Totals{}
	for _, res := range rep.Results {
		t := out[res.Family]
		t.add(res.Status)
		out[res.Family] = t
	}
	return out
}

// Table renders the per-family totals as a fixed-width text table.
func (rep *Report) Table() string {
	fams := rep.ByFamily()
	keys := make([]string, 0, len(fams))
	for k := range fams {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "%-16s %5s %5s %8s %5s %11s\n", "family", "pass", "fail", "repaired", "skip", "unsupported")
	for _, k := range append(keys, "TOTAL") {
		t := fams[k]
		if k == "TOTAL" {
			t = rep.Totals
		}
		fmt.Fprintf(&b, "%-16s %5d %5d %8d %5d %11d\n", k, t.Pass, t.Fail, t.Repaired, t.Skip, t.Unsupported)
	}
	fmt.Fprintf(&b, "pairs %d/%d, reason agreement %d/%d\n", rep.Pairs.Passed, rep.Pairs.Total,
		rep.ReasonAgreement.Agreed, rep.ReasonAgreement.Total)
	return b.String()
}

// JSON returns the scorecard as indented JSON.
func (rep *Report) JSON() ([]byte, error) { return json.MarshalIndent(rep, "", "  ") }

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprintf("<unencodable: %v>", err))
	}
	return b
}
