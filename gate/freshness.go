package gate

// Fresh reports whether evidence produced at evidenceDigest still
// describes constraint c whose inputs now digest to currentDigest: both
// are well-formed digests and equal. Anything malformed is stale.
func Fresh(c *Constraint, evidenceDigest, currentDigest string) bool {
	return c != nil && isHexDigest(evidenceDigest) && evidenceDigest == currentDigest
}

// ReuseOptions are the caller's cache switches.
type ReuseOptions struct {
	// NoCache reads nothing (and the caller writes nothing).
	NoCache bool
	// Refresh reads nothing (the caller still writes).
	Refresh bool
	// RefreshPending reruns a cached pending result.
	RefreshPending bool
}

// Reusable decides whether cached evidence may stand in for running c now
// (SPEC §2 freshness rules): caching is on (not ci, no NoCache, no
// Refresh); the evidence is for this constraint, kind and enforcement; its
// digest is fresh; it is not pending under RefreshPending; and it is not an
// environment failure (fixing a tool changes no watched file). A cached
// waived verdict is never reused: waivers apply on read, not on store. The
// reason says why not, for "gate status" and "gate debug".
func Reusable(phase Phase, c *Constraint, cached *Evidence, currentDigest string, opt ReuseOptions) (bool, string) {
	switch {
	case !phase.UsesCache():
		return false, "phase " + string(phase) + " never uses cached evidence"
	case opt.NoCache || opt.Refresh:
		return false, "cache reads are off"
	case c == nil || cached == nil:
		return false, "no cached evidence"
	case cached.ConstraintID != c.ID || cached.Kind != c.Kind:
		return false, "cached evidence is for another constraint"
	case !cached.Verdict.Valid() || cached.Verdict == Waived:
		return false, "cached verdict is not reusable"
	case !Fresh(c, cached.InputDigest, currentDigest):
		return false, "stale: inputs changed"
	case cached.Enforcement != c.Enforcement:
		return false, "stale: enforcement changed"
	case opt.RefreshPending && cached.Verdict == Pending:
		return false, "pending results are refreshed"
	case cached.Category == CategoryEnvironment:
		return false, "environment failures are rerun"
	}
	return true, "fresh"
}

func isHexDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
