package main

import (
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/gates"
)

// gateSetupCmd is `tine gate setup [--adapter A] [--hook-executable CMD]`.
type gateSetupCmd struct {
	gateProject
	Adapter        string `name:"adapter" enum:"claude,codex,gemini,all" default:"all" help:"Agent CLI to wire: claude, codex, gemini or all (default)."`
	HookExecutable string `name:"hook-executable" placeholder:"CMD" help:"Command the hook entries start with (default: tine)."`
	PrePush        bool   `name:"pre-push" help:"Install only the opt-in git pre-push hook running the push phase (never replaces a hook tine did not write; refuses a hook, or hooks directory in the repository, that is a symlink)."`
	jsonFlag
}

// Help shows an example under `tine gate setup --help`.
func (c *gateSetupCmd) Help() string {
	return `Merges tine's hook entries into each agent CLI's project settings
(.claude/settings.local.json, .codex/hooks.json, .gemini/settings.json),
keeping every other key and hook. Running it again rewrites tine's entries
in place. A settings file that is not strict JSON, whose hooks are
malformed, or that is reached through a symlink (the file or its
directory) is refused and nothing is changed. The files and directories
it creates are recorded, so tine gate uninstall removes them again once
they hold nothing else.

Example:

    $ tine gate setup --adapter claude
    claude: .claude/settings.local.json (6 hook entries written)`
}

// Run wires the hooks.
func (c *gateSetupCmd) Run(e *env) error {
	if c.PrePush {
		res, err := gates.InstallPrePush(e.ctx, c.Project, c.HookExecutable)
		return prePushRun(e, c.JSON, res, err)
	}
	res, err := gates.SetupHooks(hookSetupOptions(e, c.Project, c.Adapter, c.HookExecutable))
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		for _, f := range res.Files {
			state := "unchanged"
			if f.Changed {
				state = "written"
			}
			p.printf("%s: %s (%d hook entries %s)\n", f.Adapter, f.Path, f.Entries, state)
		}
		printHookNote(p, res.Note)
	})
}

// hookSetupOptions builds the options of setup and uninstall. The hook
// tombstone lives in the repository when there is one.
func hookSetupOptions(e *env, project, adapter, exe string) gates.HookSetupOptions {
	opt := gates.HookSetupOptions{Project: project, Executable: exe}
	if adapter != "all" {
		opt.Adapters = []string{adapter}
	}
	if r := hookRepo(e, project); r != nil {
		opt.StateDir = gates.GateStateDir(r)
		r.Close()
	}
	return opt
}

// hookRepo opens the repository a project's hooks use: --repo when given,
// else the nearest .tine at or above the project; nil when there is none.
func hookRepo(e *env, project string) *plumbing.Repo {
	var r *plumbing.Repo
	var err error
	if e.repoFlag != "" {
		r, err = plumbing.Open(e.repoFlag)
	} else {
		r, err = plumbing.Discover(project)
	}
	if err != nil {
		return nil
	}
	return r
}
