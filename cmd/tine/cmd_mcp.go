package main

import (
	"fmt"
	"path/filepath"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/agents"
)

// mcpCmd is `tine mcp [--read-only] [--allow-promotion [--policy FILE]
// [--key-file K...]] [--project DIR]`.
type mcpCmd struct {
	ReadOnly       bool     `name:"read-only" help:"Register only the read tools."`
	AllowPromotion bool     `name:"allow-promotion" help:"Also register promote, which moves promotions/NAME once the release policy holds."`
	Policy         string   `name:"policy" placeholder:"FILE" help:"Release policy promote checks (default: tine-policy.json next to .tine); needs --allow-promotion."`
	KeyFile        []string `name:"key-file" placeholder:"K" help:"Secret of an HMAC key the policy trusts (repeatable); needs --allow-promotion."`
	Project        string   `name:"project" placeholder:"DIR" default:"." help:"Project directory whose gate contract gate_status reads."`
}

// Help lists the tools and the rules under `tine mcp --help`.
func (c *mcpCmd) Help() string {
	return `Serves the repository to an AI agent over the Model Context Protocol on
stdin/stdout (newline-delimited JSON-RPC); diagnostics go to stderr.

Read tools: list_refs, runs, log, show, context, diff, search, loop_show,
gate_status.
Write tools: record_event, fork, resume, evaluate, attest; they act only on
experiments/* refs (checked on the canonical name), since run content an
agent reads is untrusted. promote is a tool only with --allow-promotion and
goes through the release policy. --read-only registers the read tools only.
Arguments that begin with "-" are refused; every input is bounded.

Example client configuration:

    {"mcpServers": {"tine": {"command": "tine", "args": ["mcp", "--repo", "/path/to/project"]}}}`
}

// Run serves until the client closes stdin.
func (c *mcpCmd) Run(e *env) error {
	switch {
	case c.ReadOnly && c.AllowPromotion:
		return usagef("--read-only and --allow-promotion cannot be combined")
	case !c.AllowPromotion && c.Policy != "":
		return usagef("--policy has no effect without --allow-promotion")
	case !c.AllowPromotion && len(c.KeyFile) > 0:
		return usagef("--key-file has no effect without --allow-promotion")
	}
	// Open once now, so a missing repository fails before any client
	// talks to us, and fix the path: each tool call reopens this one.
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	root := r.Root()
	r.Close()
	project, err := filepath.Abs(c.Project)
	if err != nil {
		return err
	}
	opt := agents.Options{
		Open: func() (*plumbing.Repo, error) {
			return plumbing.OpenWith(root, plumbing.OpenOptions{Notice: func(msg string) { fmt.Fprintf(e.stderr, "tine mcp: %s\n", msg) }})
		},
		Version:        moduleVersion(),
		ReadOnly:       c.ReadOnly,
		AllowPromotion: c.AllowPromotion,
		PolicyFile:     c.Policy,
		KeyFiles:       c.KeyFile,
		GateProject:    project,
	}
	srv, err := agents.NewServer(opt)
	if err != nil {
		return err
	}
	return srv.Serve(e.ctx, e.stdin, e.stdout)
}
