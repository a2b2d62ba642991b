package gates

import "github.com/tinehq/tine/gate"

// Names of package gate that cmd/tine needs: cmd/tine imports only
// porcelain and plumbing (ARCHITECTURE §3), so they are re-exported here.

// GatePhase is a gate phase (change, stop, push, ci).
type GatePhase = gate.Phase

// The phases, verdicts and enforcement cmd/tine names.
const (
	GatePhaseCI     = gate.PhaseCI
	GateVerdictPass = string(gate.Pass)
	GateAdvisory    = string(gate.Advisory)
)

// GateExitCode is the exit status of gate run and gate ci for a result:
// 0 passed, 1 blocked, and gate.DefaultPendingCode (75, EX_TEMPFAIL) when
// only pending results block, so a caller knows to wait rather than repair.
func GateExitCode(res *GateRunResult) int {
	switch {
	case res.Passed:
		return gate.ExitPassed
	case res.Waiting:
		return gate.DefaultPendingCode
	}
	return gate.ExitBlocked
}
