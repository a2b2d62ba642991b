package main

import "github.com/tinehq/tine/porcelain/gates"

// gateHookCmd is `tine gate hook --adapter A --event E`, run by the agent
// CLIs with their hook JSON on stdin.
type gateHookCmd struct {
	gateProject
	Adapter string `name:"adapter" required:"" help:"Agent CLI calling: claude, codex or gemini."`
	Event   string `name:"event" required:"" help:"Hook event: session-start, user-prompt, pre-tool, post-tool, pre-compact or stop."`
}

// Help shows an example under `tine gate hook --help`.
func (c *gateHookCmd) Help() string {
	return `Answers one agent hook call in that CLI's JSON: context, a denied tool
call, a blocked completion (keep working), an allowed completion, or a stop
for a human. It always prints valid JSON and exits 0; any internal failure
answers with a deny (pre-tool) or a stop for a human (every other event).

Example:

    $ echo '{"session_id":"s1"}' | tine gate hook --adapter claude --event stop
    {"decision":"block","reason":"[tine gate continuation]\n..."}`
}

// Run answers the hook.
func (c *gateHookCmd) Run(e *env) error {
	r := hookRepo(e, c.Project)
	if r != nil {
		defer r.Close()
	}
	resp := gates.GateHook(e.ctx, gates.HookOptions{Adapter: c.Adapter, Event: c.Event, Project: c.Project, Repo: r,
		Input: e.stdin})
	_, err := e.stdout.Write(resp.Bytes())
	return err
}
