package gates

import (
	"sync"

	"github.com/tinehq/tine/gate"
)

// runWave evaluates one dependency wave (SPEC §2 Execution): deterministic
// constraints concurrently, up to Settings.Concurrency at a time, then
// rubrics serially (their bundles carry the deterministic results). Results
// are appended in the wave's (sorted) order whatever finished first.
func (g *gateEval) runWave(wave []*gate.Constraint) error {
	out := make([]*GateResult, len(wave))
	errs := make([]error, len(wave))
	limit := g.proj.Contract.Settings.Concurrency
	if limit < 1 {
		limit = 1
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i, c := range wave {
		if c.Kind == gate.KindRubric {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, c *gate.Constraint) {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = g.evaluate(c)
		}(i, c)
	}
	wg.Wait()
	for i := range wave {
		if errs[i] != nil {
			return errs[i]
		}
	}
	for i, c := range wave {
		if c.Kind != gate.KindRubric {
			continue
		}
		if out[i], errs[i] = g.evaluate(c); errs[i] != nil {
			return errs[i]
		}
	}
	g.results = append(g.results, out...)
	return nil
}

// evaluate produces one constraint's result: blocked by its needs, a
// waived or reused cached result, or a fresh execution.
func (g *gateEval) evaluate(c *gate.Constraint) (*GateResult, error) {
	in, err := gate.CollectInput(g.proj.Root, g.proj.Contract, c, g.proj.Checkout)
	if err != nil {
		return nil, err
	}
	digest, err := gate.InputDigest(in)
	if err != nil {
		return nil, err
	}
	parts := digestParts(in)
	g.mu.Lock()
	dep := gate.DependencyResult(c, g.effective, digest)
	g.mu.Unlock()
	if dep != nil {
		g.progress(GateProgress{Constraint: c.ID, Kind: c.Kind, Stage: GateStageBlocked, Verdict: dep.Verdict})
		return g.add(c, dep, parts, nil, nil)
	}
	if g.cache != nil {
		rec, err := g.cache.lookup(g.ctx, c, digest)
		if err != nil {
			return nil, err
		}
		if rec != nil {
			if w := g.notes.applicableWaiver(g.phase, g.proj.Contract, c, rec, digest); w != nil {
				g.progress(GateProgress{Constraint: c.ID, Kind: c.Kind, Stage: GateStageWaived, Verdict: gate.Waived})
				return g.add(c, rec.Evidence, parts, rec, w)
			}
			if ok, _ := gate.Reusable(g.phase, c, rec.Evidence, digest, g.reuse); ok && len(rec.Evidence.BlockedBy) == 0 {
				g.progress(GateProgress{Constraint: c.ID, Kind: c.Kind, Stage: GateStageReused, Verdict: rec.Evidence.Verdict})
				return g.add(c, rec.Evidence, parts, rec, nil)
			}
		}
	}
	g.progress(GateProgress{Constraint: c.ID, Kind: c.Kind, Stage: GateStageRun})
	g.mu.Lock()
	prior := append([]*gate.Evidence(nil), g.prior...)
	g.mu.Unlock()
	ev, err := g.engine.Execute(g.ctx, c, gate.ExecEnv{
		Root: g.proj.Root, Contract: g.proj.Contract, Env: g.opt.Env,
		InputDigest: digest, Prior: prior, Goal: g.opt.Goal,
	})
	if err != nil {
		return nil, err
	}
	g.progress(GateProgress{Constraint: c.ID, Kind: c.Kind, Stage: GateStageDone, Verdict: ev.Verdict, Duration: ev.Duration})
	return g.add(c, ev, parts, nil, nil)
}

// add turns evidence into a result. New evidence (reused is nil) becomes an
// event when recording, and the result holds the stored form; a waiver
// reason makes the decision read a waived copy (the stored evidence stays
// the original failure, SPEC §4).
func (g *gateEval) add(c *gate.Constraint, ev *gate.Evidence, parts gateDigestParts, reused *GateEvidenceRecord, waiver *gate.Waiver) (*GateResult, error) {
	res := &GateResult{ID: c.ID, Reused: reused != nil}
	stored := ev
	switch {
	case reused != nil:
		res.Event = reused.Event.String()
	case g.r != nil:
		w, rec, err := buildGateEvent(g.ctx, g.r.Algo(), ev, g.phase, parts)
		if err != nil {
			return nil, err
		}
		stored, res.Event = rec.Evidence, rec.Event.String()
		g.mu.Lock()
		g.written = append(g.written, w)
		g.mu.Unlock()
	}
	effective := stored
	if waiver != nil {
		if w := gate.Waive(g.phase, g.proj.Contract, c, stored, stored.InputDigest, waiver); w != nil {
			effective = w
			res.Waived, res.WaiverReason = true, waiver.Reason
		}
	}
	res.Evidence, res.Effective = stored, effective
	res.Kind, res.Enforcement = string(effective.Kind), string(effective.Enforcement)
	res.Verdict, res.Message = string(effective.Verdict), effective.Message
	res.InputDigest, res.BlockedBy = effective.InputDigest, effective.BlockedBy
	res.Blocks = effective.Blocks()
	g.mu.Lock()
	g.effective[c.ID] = effective
	if c.Kind != gate.KindRubric {
		g.prior = append(g.prior, stored)
	}
	g.mu.Unlock()
	return res, nil
}
