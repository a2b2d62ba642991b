package trust

import (
	"context"
	"errors"
	"fmt"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// CandidatesOptions configures Candidates.
type CandidatesOptions struct {
	// Min are score thresholds (ParseScore: NAME=V): a run qualifies when
	// its best evaluation of each name reaches V. None: every evaluated run.
	Min []Score
	// RefPrefix keeps runs named by a ref at or under it (whole
	// components); "" keeps every evaluated run.
	RefPrefix string
	// Signer keeps evaluations by exactly this signer; "" keeps all.
	Signer string
	// KeyFile and PubKey verify each listed evaluation's signature (as
	// tine verify reads them); without them the state is unsigned or
	// no-key.
	KeyFile, PubKey string
}

// CandidateScore is one best score of a candidate and the evaluation that
// gave it, with that evaluation's signature state.
type CandidateScore struct {
	Name        string  `json:"name"`
	Value       float64 `json:"value"`
	Attestation string  `json:"attestation"`
	Signer      string  `json:"signer"`
	// Signed reports a signature block; Verified a signature that verified
	// against the given key; State is the verdict state (SPEC §4.6).
	Signed   bool   `json:"signed"`
	Verified bool   `json:"verified"`
	State    string `json:"state"`
}

// Candidate is one run that meets a candidates query.
type Candidate struct {
	// Ref is the first ref naming the run ("" if none); Refs all of them.
	Ref    string           `json:"ref"`
	Refs   []string         `json:"refs"`
	Run    string           `json:"run"`
	Scores []CandidateScore `json:"scores"`
}

// CandidatesResult is what `tine candidates` reports.
type CandidatesResult struct {
	Candidates []Candidate `json:"candidates"`
	// Index is what bringing the catalog up to date did.
	Index string `json:"index"`
}

// Candidates answers from the derived catalog (evaluations by score name
// and value, runs by ref), never by scanning objects: the runs whose best
// evaluation scores meet every threshold, best first by the first
// threshold's score. Only the evaluations listed are read back (through
// the store, which re-verifies them) to report their signature state.
func Candidates(ctx context.Context, r *plumbing.Repo, opt CandidatesOptions) (*CandidatesResult, error) {
	q := index.CandidateQuery{Filter: index.Filter{RefPrefix: opt.RefPrefix, Signer: opt.Signer}}
	for _, s := range opt.Min {
		if err := CheckScoreName(s.Name); err != nil {
			return nil, fmt.Errorf("candidates: %w", err)
		}
		q.Min = append(q.Min, index.Threshold{Name: s.Name, Min: s.Value})
	}
	vopt := objects.VerifyOptions{}
	armed := opt.KeyFile != "" || opt.PubKey != ""
	if armed {
		var err error
		if vopt, err = plumbing.VerifyKeys(plumbing.VerifyOptions{KeyFile: opt.KeyFile, PubKey: opt.PubKey}); err != nil {
			return nil, fmt.Errorf("candidates: %w", err)
		}
	}
	cat, rep, err := plumbing.OpenIndex(r).Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("candidates: catalog: %w", err)
	}
	res := &CandidatesResult{Candidates: []Candidate{}, Index: rep.Action}
	verdicts := map[objects.OID]*objects.Verdict{}
	for _, c := range cat.Candidates(q) {
		cd := Candidate{Refs: c.Refs, Run: c.Run.String(), Scores: []CandidateScore{}}
		if cd.Refs == nil {
			cd.Refs = []string{}
		}
		if len(c.Refs) > 0 {
			cd.Ref = c.Refs[0]
		}
		missing := false
		for _, e := range c.Best {
			v, ok := verdicts[e.Attestation]
			if !ok {
				o, err := r.Objects().Get(ctx, e.Attestation)
				switch {
				case errors.Is(err, objects.ErrNotFound):
					// Pruned since indexing: a cache miss, not a candidate.
				case err != nil:
					return nil, fmt.Errorf("candidates: attestation %s: %w", e.Attestation, err)
				default:
					verdict := objects.VerifyAttestation(o.Value, vopt)
					v = &verdict
				}
				verdicts[e.Attestation] = v
			}
			if v == nil {
				missing = true
				continue
			}
			cd.Scores = append(cd.Scores, CandidateScore{Name: e.Name, Value: e.Value, Attestation: e.Attestation.String(),
				Signer: e.Signer, Signed: v.State != objects.StateUnsigned, Verified: armed && v.OK && v.State == objects.StateVerified, State: v.State})
		}
		if !missing {
			res.Candidates = append(res.Candidates, cd)
		}
	}
	return res, nil
}
