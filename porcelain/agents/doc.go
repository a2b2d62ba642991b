// Package agents serves tine's workflows to AI agents as Model Context
// Protocol tools (`tine mcp`): read tools over refs, logs, objects, event
// context, diffs, loops and gate status, and write tools that record, fork,
// resume, evaluate and attest. Every tool calls the same porcelain function
// the CLI verb calls; this package adds only what an agent needs on top:
// input bounds, refusals and the rule of where an agent may write.
//
// Run content is untrusted: an event an agent reads may ask it to move
// heads/main or a release. So every write tool acts on experiments/* only,
// checked on the canonical ref name after revision resolution; promotion is
// a tool only when the operator starts the server with AllowPromotion, and
// even then it goes through the release policy (porcelain/trust). No
// argument that begins with "-" is accepted, and nothing is ever passed to
// a command line.
//
// agents owns no on-disk format: it writes through porcelain/runs and
// porcelain/trust. It imports the rooms below it only (internal/archtest);
// nothing here prints or exits: cmd/tine hands it stdin and stdout.
//
// The protocol is tine's own small implementation of MCP's tools over
// stdio (session.go, methods.go, rpc.go; schemas in schema.go and
// validate.go), not an SDK: every tine process pays the package
// initialisation of what the binary links, and an SDK's JSON schema,
// OAuth and HTTP transports cost each start of every verb. The SDK's
// client is kept in the tests, as the conformance check.
package agents
