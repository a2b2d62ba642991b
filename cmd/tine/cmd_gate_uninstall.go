package main

import "github.com/tinehq/tine/porcelain/gates"

// gateUninstallCmd is `tine gate uninstall [--adapter A]`.
type gateUninstallCmd struct {
	gateProject
	Adapter string `name:"adapter" enum:"claude,codex,gemini,all" default:"all" help:"Agent CLI to unwire: claude, codex, gemini or all (default)."`
	PrePush bool   `name:"pre-push" help:"Remove only the git pre-push hook, and only if tine wrote it (a symlinked hook, or hooks directory in the repository, is refused)."`
	jsonFlag
}

// Help shows an example under `tine gate uninstall --help`.
func (c *gateUninstallCmd) Help() string {
	return `Removes only tine's hook entries from each agent CLI's project settings,
dropping groups and events left empty, and keeps everything else. A
settings file tine gate setup created that still holds what setup wrote
(and so nothing else) is removed, and the directories setup created for
it when they are empty; a file or directory that was there before setup,
or that someone changed, is kept. A settings file reached through a
symlink is refused, and nothing is changed. It then records the adapter
in the repository's hook tombstone, so a restored copy of the old wiring
stays inert until tine gate setup runs again.

Example:

    $ tine gate uninstall --adapter claude
    claude: .claude/settings.local.json (6 hook entries removed)`
}

// Run unwires the hooks.
func (c *gateUninstallCmd) Run(e *env) error {
	if c.PrePush {
		res, err := gates.UninstallPrePush(e.ctx, c.Project)
		return prePushRun(e, c.JSON, res, err)
	}
	res, err := gates.UninstallHooks(hookSetupOptions(e, c.Project, c.Adapter, ""))
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		for _, f := range res.Files {
			p.printf("%s: %s (%d hook entries removed", f.Adapter, f.Path, f.Entries)
			if f.Removed {
				p.printf("; file removed: setup created it, nothing else is left")
			}
			for _, d := range f.RemovedDirs {
				p.printf("; %s/ removed, empty", d)
			}
			p.printf(")\n")
		}
		printHookNote(p, res.Note)
	})
}

// printHookNote prints the note of gate setup or uninstall, if any.
func printHookNote(p *printer, note string) {
	if note != "" {
		p.printf("note: %s\n", sanitize(note))
	}
}
