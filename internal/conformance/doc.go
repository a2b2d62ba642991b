// Package conformance runs OpenTine's conformance suite against tine.
//
// The suite (testdata/conformance, copied verbatim from OpenTine's
// docs/conformance, Apache-2.0) is a set of vector files, each case naming
// one of 33 ops, an input, optional args and the expected answer. OpenTine
// drives an implementation through a line-delimited JSON protocol: one
// request per line in, one response per line out (SPEC digest §4.2).
//
// This package holds both halves of that protocol:
//
//   - the adapter side: Request, Response and Handler, which decodes the
//     tagged value tree, dispatches an op to the objects/refs/plumbing
//     function that owns the rule, and reports the reason code of a refusal
//     through objects.ReasonOf. cmd/tine-conformance wraps a Handler in the
//     stdin/stdout loop;
//   - the runner side: LoadSuite, the gen recipes, Run and Report, which
//     assemble each case's input, ask a Handler in-process and score the
//     answer the way OpenTine's reference runner does (pass, fail, repaired,
//     skip, unsupported; Level 2 reason agreement with alias groups; twin
//     pairs and must_differ).
//
// The adapter runs the sha256 object profile, OpenTine's. No op handler
// looks at a vector id or special-cases an input: every answer comes from
// the library code under test.
package conformance
