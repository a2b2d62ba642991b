package gate

import "fmt"

// Phase is when a constraint runs (SPEC §1 "Phases and their policy").
type Phase string

// The four phases, in lifecycle order.
const (
	// PhaseChange runs after a file-changing agent tool call.
	PhaseChange Phase = "change"
	// PhaseStop runs when an agent tries to finish, and for a plain "gate run".
	PhaseStop Phase = "stop"
	// PhasePush runs before a push: cached evidence yes, local waivers no.
	PhasePush Phase = "push"
	// PhaseCI is the authority: no cache reads or writes, no waivers.
	PhaseCI Phase = "ci"
)

// Phases lists every phase in lifecycle order.
var Phases = []Phase{PhaseChange, PhaseStop, PhasePush, PhaseCI}

// ParsePhase returns the phase named s.
func ParsePhase(s string) (Phase, error) {
	for _, p := range Phases {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown phase %q (want change, stop, push or ci)", s)
}

// AllowsLocalWaivers is the single policy point for waivers (SPEC §1:
// Phase.allows_local_waivers): true for change and stop only.
func (p Phase) AllowsLocalWaivers() bool { return p == PhaseChange || p == PhaseStop }

// UsesCache reports whether evidence may be read from or written to the
// cache in this phase; ci never touches it (SPEC §1, §5).
func (p Phase) UsesCache() bool { return p != PhaseCI && p.valid() }

func (p Phase) valid() bool {
	_, err := ParsePhase(string(p))
	return err == nil
}
