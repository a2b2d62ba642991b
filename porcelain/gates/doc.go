// Package gates holds tine's gate workflows over a repository: the gate
// project and its contract (tine-gate.yml), gate run and gate cycle, the
// evidence a gate decides on, verdicts recorded as events, waivers, the gate
// log and status, the doctor, and the agent-hook setup and runtime that run
// gates at an agent's stop. Decisions themselves (contracts, runners,
// verdicts) are package gate's; this room stores and reads them.
//
// gates sits above porcelain/runs (runs and events) and porcelain/trust (a
// gate attestation is signed like a promotion's), and imports neither
// porcelain/loops nor porcelain/demo; internal/archtest enforces the order.
// Nothing here prints or exits.
//
// The readers take small interfaces: LoadGateAnnotations and the gate-run
// listings read through objects.Getter and runs.RefLister, and a waiver is
// committed through an ObjectWriter (the validated write path) and a
// RefUpdater (compare-and-swap). The verbs (RunGate, RunCycle, GateWaive,
// GateStatus, the hooks) keep *plumbing.Repo: they resolve revisions, write
// runs and use the repository root for the cycle journal and guards.
package gates
