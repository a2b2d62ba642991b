// Package gate holds the decisions of tine's evidence gates: a port of
// ConstraintLoop's model (spec: constraintloop.md). It parses and
// validates contracts, computes input digests, runs constraints, and
// decides verdicts, completion, freshness and waiver validity. It persists
// nothing: storing evidence as gate-run events and attestations, the
// derived cache index, waivers as annotations, the verbs and the hooks
// live in porcelain and cmd/tine (ARCHITECTURE §3, §4).
//
// # Contract
//
// ContractFileNames lists the files looked for in a project root, first
// match wins: tine-gate.yml, tine-gate.yaml, constraintloop.yml,
// constraintloop.yaml. LoadContract reads ConstraintLoop schema version 1
// strictly (unknown or duplicate keys, bad types and ranges, cycles, needs
// not enabled in every phase of the dependent are errors with line
// numbers; anchors and aliases are refused; 1 MiB cap). Overlays
// (constraintloop.local.yml) are not read: tine's contract is the
// committed file only. One tine extension: an optional top-level name
// (Contract.Name), bound by the digest, which gate attestations carry as
// contract_name for release policies.
//
// # API for the persistence layer
//
// A gate run for phase P is, in order:
//
//	contract, err := gate.LoadContract(data)
//	waves, err := gate.Waves(contract, P)          // or Plan: the same, flattened
//	eng := gate.NewEngine(clock)
//	for each wave, for each constraint c (concurrently up to
//	Settings.Concurrency for deterministic kinds, rubrics serially):
//	    digest, err := gate.ComputeInputDigest(root, contract, c, checkout)
//	    if ev := gate.DependencyResult(c, resultsSoFar, digest); ev != nil { use ev; continue }
//	    cached := cache lookup by (checkout scope, c.ID, digest)  // never in ci
//	    if w := stored waiver; cached != nil && P.AllowsLocalWaivers() {
//	        if waived := gate.Waive(P, contract, c, cached, digest, w); waived != nil { use waived; continue }
//	    }
//	    if ok, _ := gate.Reusable(P, c, cached, digest, opts); ok { use cached; continue }
//	    ev, err := eng.Execute(ctx, c, gate.ExecEnv{Root, Contract, Env, InputDigest: digest, Prior, Goal, Diff, Changed})
//	    store ev.JSON() (and ev.Output as a blob) as an event; index digest -> event
//	decision := gate.DecidePlan(P, plan, results)    // Passed, ExitCode, RootCauses, Waiting
//
// The waived copy from Waive is for the decision only; store the original.
// NewWaiver and NewAcknowledgement check the creation rules; Waiver and
// Acknowledgement bind Evidence.Digest (timing excluded), so the caller can
// store them as annotations on the evidence event. "gate status" is
// ComputeInputDigest plus Fresh against the stored evidence's InputDigest.
// Checkout is filled by the caller (git or tine state); gate only frames
// it.
//
// # Digests
//
// InputDigest is tine's own versioned format (prefix "tine-gate-input-v1"),
// length-framed as SPEC §2 describes, with watched files framed by the
// SHA-256 of their bytes. It and Contract.Digest are cache keys, not object
// identities, so they use crypto/sha256 directly whatever the repository's
// object hash; objects.CanonV3 provides every canonical JSON form. The
// contract digest covers the whole contract, as ConstraintLoop's does: any
// contract edit stales all evidence and waivers.
//
// # Execution
//
// Each process runs in its own process group; a timeout sends SIGTERM to
// the group, SIGKILL after 500 ms, and a final SIGKILL always follows.
// Combined output is collected up to MaxCollectedOutput (8 MiB); beyond it
// the result is an error and is never parsed. Output is redacted
// (objects.RedactBlob plus secret-named environment values) before it is
// cut to Settings.EvidenceOutputLimit. Evaluator responses are parsed
// strictly; anything malformed is an errored run, which can never pass.
// Evaluators of type openai and anthropic send the bundle to the model's
// HTTP API through internal/llm (bounded time and response size, the key
// read from the variable api_key_env names), retrying only transient
// failures, and record safe call metadata.
package gate
