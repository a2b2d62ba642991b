package index

import (
	"cmp"
	"slices"

	"github.com/tinehq/tine/objects"
)

// Filter narrows evaluation queries.
type Filter struct {
	// RefPrefix keeps evaluations of runs named by a ref at or under it
	// (whole components); "" keeps every run, referenced or not.
	RefPrefix string
	// Signer keeps evaluations whose signer is exactly this; "" keeps all.
	Signer string
}

// Evaluation is one score of one evaluation attestation.
type Evaluation struct {
	Attestation objects.OID
	Run         objects.OID
	Signer      string
	Name        string
	Value       float64
	// Refs are the refs that name Run, sorted.
	Refs []string
}

// keep reports whether attestation a passes f.
func (c *Catalog) keep(a *Attestation, f Filter) bool {
	if a.Target.IsZero() || f.Signer != "" && a.Signer != f.Signer {
		return false
	}
	if f.RefPrefix == "" {
		return true
	}
	for _, name := range c.refsOf[a.Target] {
		if underPrefix(name, f.RefPrefix) {
			return true
		}
	}
	return false
}

// Evaluations returns the evaluation scores named name that are at least
// min and pass f, best first (ties by attestation oid): the
// evaluations-by-score table, read without touching the object store.
func (c *Catalog) Evaluations(name string, min float64, f Filter) []Evaluation {
	var out []Evaluation
	for _, row := range c.byScore[name] {
		if row.value < min {
			break // rows are sorted best first
		}
		a := &c.d.atts[row.att]
		if !c.keep(a, f) {
			continue
		}
		out = append(out, Evaluation{Attestation: a.ID, Run: a.Target, Signer: a.Signer,
			Name: name, Value: row.value, Refs: c.RefsOf(a.Target)})
	}
	return out
}

// Threshold is one minimum-score requirement of a candidates query.
type Threshold struct {
	Name string
	Min  float64
}

// CandidateQuery selects candidate runs.
type CandidateQuery struct {
	// Min lists the scores a candidate must reach; a run qualifies when,
	// for every entry, its best such score among the kept evaluations is
	// at least Min. With no entries every evaluated run qualifies.
	Min []Threshold
	Filter
}

// Candidate is a run that meets a candidates query.
type Candidate struct {
	Run  objects.OID
	Refs []string
	// Best holds, per score name, the best kept evaluation, sorted by name.
	Best []Evaluation
}

// Score returns the candidate's best score name.
func (cd *Candidate) Score(name string) (Evaluation, bool) {
	for _, e := range cd.Best {
		if e.Name == name {
			return e, true
		}
	}
	return Evaluation{}, false
}

// Candidates returns the evaluated runs meeting q, ordered by their best
// value of the first threshold's score (descending), then by run oid.
func (c *Catalog) Candidates(q CandidateQuery) []Candidate {
	best := map[objects.OID]map[string]Evaluation{}
	for i := range c.d.atts {
		a := &c.d.atts[i]
		if a.Kind != KindEvaluation || !c.keep(a, q.Filter) {
			continue
		}
		m := best[a.Target]
		if m == nil {
			m = map[string]Evaluation{}
			best[a.Target] = m
		}
		for _, s := range a.Scores {
			if cur, ok := m[s.Name]; !ok || s.Value > cur.Value {
				m[s.Name] = Evaluation{Attestation: a.ID, Run: a.Target, Signer: a.Signer, Name: s.Name, Value: s.Value}
			}
		}
	}
	var out []Candidate
	for run, m := range best {
		if !meets(m, q.Min) {
			continue
		}
		cd := Candidate{Run: run, Refs: c.RefsOf(run)}
		for _, e := range m {
			e.Refs = cd.Refs
			cd.Best = append(cd.Best, e)
		}
		slices.SortFunc(cd.Best, func(x, y Evaluation) int { return cmp.Compare(x.Name, y.Name) })
		out = append(out, cd)
	}
	slices.SortFunc(out, func(x, y Candidate) int {
		if len(q.Min) > 0 {
			a, _ := x.Score(q.Min[0].Name)
			b, _ := y.Score(q.Min[0].Name)
			if r := cmp.Compare(b.Value, a.Value); r != 0 {
				return r
			}
		}
		return x.Run.Compare(y.Run)
	})
	return out
}

// meets reports whether the best scores m satisfy every threshold.
func meets(m map[string]Evaluation, min []Threshold) bool {
	for _, t := range min {
		e, ok := m[t.Name]
		if !ok || e.Value < t.Min {
			return false
		}
	}
	return true
}
