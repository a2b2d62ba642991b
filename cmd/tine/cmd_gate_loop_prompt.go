package main

import "github.com/tinehq/tine/porcelain/gates"

// gateLoopPromptCmd is `tine gate loop-prompt LOOP --adapter A`.
type gateLoopPromptCmd struct {
	gateProject
	Name    string `arg:"" name:"loop" help:"Loop name from the contract's loops."`
	Adapter string `name:"adapter" required:"" enum:"claude,codex,gemini" help:"Agent CLI the prompt is for: claude, codex or gemini."`
}

// Help shows an example under `tine gate loop-prompt --help`.
func (c *gateLoopPromptCmd) Help() string {
	return `Prints fixed instructions for an agent session that drives a loop:
run one cycle, follow only next_action, stop on a final state, never edit the
contract, waivers or journal, and (for a challenge loop) do the challenge and
verify work in the same session.

Example:

    $ claude "$(tine gate loop-prompt completion --adapter claude)"`
}

// Run prints the prompt.
func (c *gateLoopPromptCmd) Run(e *env) error {
	text, err := gates.LoopPrompt(c.Project, c.Name, c.Adapter)
	if err != nil {
		return err
	}
	p := e.printer()
	p.printf("%s", text)
	return p.err
}
