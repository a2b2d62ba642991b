package agents

// Bounds of tool arguments, in the `max` tags of the input types.
const (
	// maxRev is the longest revision (plumbing.MaxRevisionLen).
	maxRev = 1024
	// maxRef is the longest ref name (refs.MaxNameBytes).
	maxRef = 512
	// maxText bounds free text (a fork reason, a promotion reason).
	maxText = 1024
	// MaxEventBytes bounds the JSON text of one recorded event.
	MaxEventBytes = 1 << 20
	// MaxClaimBytes bounds the JSON text of one attestation claim.
	MaxClaimBytes = 64 << 10
)

// toolAdders lists the adders of every tool the options allow: the read
// tools always, the write tools unless ReadOnly, promote only with
// AllowPromotion.
func (s *Server) toolAdders() []adder {
	out := append(s.readTools(), s.compareTools()...)
	if s.opt.ReadOnly {
		return out
	}
	out = append(out, s.writeTools()...)
	if s.opt.AllowPromotion {
		out = append(out, s.promoteTool())
	}
	return out
}

// ReadToolNames and WriteToolNames list the tools in registration order;
// promote is registered only with AllowPromotion.
var (
	ReadToolNames  = []string{"list_refs", "log", "show", "context", "diff", "loop_show", "gate_status", "runs", "search"}
	WriteToolNames = []string{"record_event", "fork", "resume", "evaluate", "attest"}
)
