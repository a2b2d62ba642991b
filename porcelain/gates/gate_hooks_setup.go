package gates

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// HookSetupOptions configures SetupHooks and UninstallHooks.
type HookSetupOptions struct {
	// Project is the project root whose agent settings are edited.
	Project string
	// Adapters are the CLIs to wire; empty means all of HookAdapters.
	Adapters []string
	// Executable starts every hook command line; "" means "tine". It is a
	// shell command prefix, used as given.
	Executable string
	// StateDir holds the uninstall tombstone (see HooksDisabled), the
	// record of created files (HooksCreatedFile) and their lock
	// (HooksLockFile); "" keeps none of them. It is the gate state
	// directory of a repository: the directory holding it is trusted, but
	// StateDir itself and the files in it must not be symlinks.
	StateDir string
}

// HookFileChange reports what setup or uninstall did to one settings file.
type HookFileChange struct {
	Adapter string `json:"adapter"`
	// Path is the settings file, relative to the project.
	Path string `json:"path"`
	// Entries counts the hook entries written (setup) or removed (uninstall).
	Entries int `json:"entries"`
	// Changed is false when the file already had exactly this content.
	Changed bool `json:"changed"`
	// Removed reports that uninstall deleted the file: setup had created
	// it, and without tine's entries it held nothing (HooksCreatedFile).
	Removed bool `json:"removed,omitempty"`
	// RemovedDirs are the directories setup had created for the file that
	// uninstall removed, empty, after it (project relative).
	RemovedDirs []string `json:"removed_dirs,omitempty"`
}

// HookSetupResult lists the files SetupHooks or UninstallHooks handled.
type HookSetupResult struct {
	Files []HookFileChange `json:"files"`
	// Note says why the record of the files setup created was not used
	// (damaged: setup replaces it, uninstall keeps every file).
	Note string `json:"note,omitempty"`
}

func (o HookSetupOptions) adapters() ([]string, error) {
	if len(o.Adapters) == 0 {
		return HookAdapters, nil
	}
	for _, a := range o.Adapters {
		if _, err := lookupHook(a, ""); err != nil {
			return nil, err
		}
	}
	return o.Adapters, nil
}

// SetupHooks merges tine's hook entries for each adapter into the project's
// settings file (SPEC §7): one entry per event, appended to the native
// event's list, or rewritten in place when an entry of tine's for that
// adapter and event is already there, so setup is idempotent. Every other
// key, group and entry is kept as it was. A settings file that is not
// strict JSON, has malformed hooks or is reached through a symlink is
// refused and no file is modified; so is a symlinked record or tombstone.
// Setup clears the adapter's uninstall tombstone. It holds HooksLockFile
// throughout, so a concurrent setup or uninstall waits for it.
func SetupHooks(opt HookSetupOptions) (*HookSetupResult, error) {
	adapters, err := opt.adapters()
	if err != nil {
		return nil, err
	}
	var res *HookSetupResult
	err = withHookStateLock(opt.StateDir, func() (err error) {
		res, err = setupHooks(opt, adapters)
		return err
	})
	return res, err
}

// hookPlan is one adapter's settings file as loaded before any is written.
type hookPlan struct {
	rel     string
	doc     objects.Value
	raw     []byte
	mode    os.FileMode
	missing []string
}

// loadPlans loads and checks every adapter's settings file, and the
// tombstone, before anything is written, so a refused file leaves all of
// them untouched. A tombstone that cannot be replaced (unreplaceable) is
// refused here: setup and uninstall both rewrite it last.
func loadPlans(opt HookSetupOptions, adapters []string) ([]hookPlan, error) {
	plans := make([]hookPlan, len(adapters))
	for i, a := range adapters {
		rel, _ := HookSettingsPath(a)
		doc, raw, mode, err := loadSettings(opt.Project, rel)
		if err != nil {
			return nil, err
		}
		plans[i] = hookPlan{rel, doc, raw, mode, missingDirs(opt.Project, rel)}
	}
	if opt.StateDir != "" {
		if _, err := readTombstone(opt.StateDir); unreplaceable(err) {
			return nil, err
		}
	}
	return plans, nil
}

// setupHooks is SetupHooks under the lock.
func setupHooks(opt HookSetupOptions, adapters []string) (*HookSetupResult, error) {
	plans, err := loadPlans(opt, adapters)
	if err != nil {
		return nil, err
	}
	res := &HookSetupResult{}
	created, err := readCreated(opt.StateDir)
	if unreplaceable(err) {
		return nil, err
	}
	if err != nil {
		// Replaced, as the tombstone is: setup is the human's explicit
		// choice. Files an earlier setup created are no longer known, so
		// uninstall keeps them.
		res.Note = fmt.Sprintf("%v; it is replaced, and uninstall keeps the settings files earlier setups created", err)
		created = map[string]createdSettings{}
	}
	if hookStateRead != nil {
		hookStateRead()
	}
	for i, a := range adapters {
		p := plans[i]
		for _, ev := range HookEvents {
			cmd := hookCommand(opt.Executable, a, ev, opt.Project)
			installHookEntry(&p.doc, a, ev, cmd)
		}
		changed, out, err := writeSettings(opt.Project, p.rel, p.doc, p.raw, p.mode)
		if err != nil {
			return res, err
		}
		res.Files = append(res.Files, HookFileChange{Adapter: a, Path: p.rel, Entries: len(HookEvents), Changed: changed})
		if opt.StateDir != "" {
			noteCreated(created, a, p.raw, out, p.missing)
			if err := writeCreated(opt.StateDir, created); err != nil {
				return res, err
			}
		}
		if err := setTombstone(opt.StateDir, a, false); err != nil {
			return res, err
		}
	}
	return res, nil
}

// UninstallHooks removes tine's hook entries for each adapter from the
// project's settings files, dropping groups and events left empty, and
// keeps everything else. A file setup created (HooksCreatedFile) that then
// holds nothing but the empty structure is removed, and the directories
// setup created for it when they are empty. It then tombstones the adapter
// so a restored copy of the old wiring stays inert (SPEC §7). Every file is
// checked first, as setup does: one refused (malformed, or reached through
// a symlink) leaves all of them, the record and the tombstone untouched.
// It holds HooksLockFile throughout.
func UninstallHooks(opt HookSetupOptions) (*HookSetupResult, error) {
	adapters, err := opt.adapters()
	if err != nil {
		return nil, err
	}
	var res *HookSetupResult
	err = withHookStateLock(opt.StateDir, func() (err error) {
		res, err = uninstallHooks(opt, adapters)
		return err
	})
	return res, err
}

// uninstallHooks is UninstallHooks under the lock.
func uninstallHooks(opt HookSetupOptions, adapters []string) (*HookSetupResult, error) {
	plans, err := loadPlans(opt, adapters)
	if err != nil {
		return nil, err
	}
	res := &HookSetupResult{}
	created, err := readCreated(opt.StateDir)
	if errors.Is(err, fsutil.ErrSymlink) {
		return nil, err
	}
	if err != nil {
		// Not used, nor rewritten: every file is kept.
		res.Note = fmt.Sprintf("%v; so every settings file is kept (tine gate setup replaces the record)", err)
	}
	if hookStateRead != nil {
		hookStateRead()
	}
	for i, a := range adapters {
		p := plans[i]
		change := HookFileChange{Adapter: a, Path: p.rel}
		if p.raw != nil {
			change.Entries = removeHookEntries(&p.doc, a)
		}
		// The record names adapters, not projects: the file is setup's
		// only while it holds the bytes setup last wrote. Any other file
		// (the project's own, when setup ran in another project under the
		// same repository; one made again) is kept, and so is the entry,
		// which may be that other project's.
		mine, isMine := created[a]
		ours := isMine && p.raw != nil && digest(p.raw) == mine.sha256
		if ours && emptySettings(p.doc, a) {
			if change.Removed, change.RemovedDirs, err = removeCreated(opt.Project, p.rel, mine); err != nil {
				return res, err
			}
		}
		switch {
		case change.Removed:
			change.Changed = true
		case change.Entries > 0:
			if change.Changed, _, err = writeSettings(opt.Project, p.rel, p.doc, p.raw, p.mode); err != nil {
				return res, err
			}
		}
		res.Files = append(res.Files, change)
		if ours {
			// Removed, or kept holding someone's content: no longer setup's.
			delete(created, a)
			if err := writeCreated(opt.StateDir, created); err != nil {
				return res, err
			}
		}
		if err := setTombstone(opt.StateDir, a, true); err != nil {
			return res, err
		}
	}
	return res, nil
}

// hookEntry is the entry tine writes for one event.
func hookEntry(a hookAdapter, adapter, event, cmd string) objects.Value {
	if a.named {
		return jdObject(jdKV("name", objects.String("tine-gate-"+event)),
			jdKV("type", objects.String("command")), jdKV("command", objects.String(cmd)))
	}
	return jdObject(jdKV("type", objects.String("command")), jdKV("command", objects.String(cmd)),
		jdKV("statusMessage", objects.String("tine gate: "+event)))
}

// installHookEntry rewrites tine's entry for (adapter, event) in place,
// dropping any duplicate of it, or appends a new group holding it.
func installHookEntry(doc *objects.Value, adapter, event, cmd string) {
	a, _ := lookupHook(adapter, event)
	native := a.native[event]
	entry := hookEntry(a, adapter, event, cmd)
	hooks, _ := jdGet(*doc, "hooks")
	if hooks.Kind != objects.KindObject {
		hooks = jdObject()
	}
	groups, _ := jdGet(hooks, native)
	placed := false
	var kept []objects.Value
	for _, g := range groups.Array {
		entries, _ := jdGet(g, "hooks")
		var es []objects.Value
		for _, e := range entries.Array {
			c, _ := jdString(e, "command")
			if !ownedHookCommand(c, adapter, event) {
				es = append(es, e)
			} else if !placed {
				es = append(es, entry)
				placed = true
			}
		}
		if len(es) == 0 && len(entries.Array) > 0 {
			continue // it held only duplicates of tine's entry
		}
		g.Object = append([]objects.Member(nil), g.Object...)
		jdSet(&g, "hooks", objects.Array(es...))
		kept = append(kept, g)
	}
	if !placed {
		g := jdObject()
		if isToolEvent(event) {
			jdSet(&g, "matcher", objects.String(a.matcher))
		}
		jdSet(&g, "hooks", objects.Array(entry))
		kept = append(kept, g)
	}
	jdSet(&hooks, native, objects.Array(kept...))
	jdSet(doc, "hooks", hooks)
}

// removeHookEntries drops every entry of tine's for adapter, whatever its
// event, and the groups and events it leaves empty; it returns how many
// entries it removed.
func removeHookEntries(doc *objects.Value, adapter string) int {
	hooks, at := jdGet(*doc, "hooks")
	if at < 0 {
		return 0
	}
	removed := 0
	var events []objects.Member
	for _, ev := range hooks.Object {
		var kept []objects.Value
		for _, g := range ev.Value.Array {
			entries, _ := jdGet(g, "hooks")
			var es []objects.Value
			for _, e := range entries.Array {
				if c, _ := jdString(e, "command"); ownedHookCommand(c, adapter, "") {
					removed++
					continue
				}
				es = append(es, e)
			}
			if len(es) == 0 && len(entries.Array) > 0 {
				continue
			}
			g.Object = append([]objects.Member(nil), g.Object...)
			jdSet(&g, "hooks", objects.Array(es...))
			kept = append(kept, g)
		}
		if len(kept) == 0 && len(ev.Value.Array) > 0 {
			continue
		}
		events = append(events, objects.Member{Key: ev.Key, Value: objects.Array(kept...)})
	}
	if removed == 0 {
		return 0
	}
	if len(events) == 0 {
		jdDelete(doc, "hooks")
	} else {
		jdSet(doc, "hooks", objects.ObjectValue(events...))
	}
	return removed
}

// hookCommand is the command line a hook entry runs. Inside a git work tree
// the project is named relative to "$(git rev-parse --show-toplevel)", so
// no absolute path of this machine is written into a file that may be
// committed (SPEC §7); elsewhere it is the quoted absolute path.
func hookCommand(exe, adapter, event, project string) string {
	if exe == "" {
		exe = "tine"
	}
	return fmt.Sprintf("%s gate hook --adapter %s --event %s --project %s", exe, adapter, event, hookProjectArg(project))
}

func hookProjectArg(project string) string {
	abs, err := filepath.Abs(project)
	if err != nil {
		return hookShellQuote(project)
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			rel, err := filepath.Rel(dir, abs)
			if err != nil || rel == "." {
				return `"$(git rev-parse --show-toplevel)"`
			}
			return `"$(git rev-parse --show-toplevel)/` + strings.NewReplacer(`"`, `\"`, `$`, `\$`, "`", "\\`", `\`, `\\`).Replace(filepath.ToSlash(rel)) + `"`
		}
		if filepath.Dir(dir) == dir {
			return hookShellQuote(abs)
		}
	}
}

// hookShellQuote quotes s for a POSIX shell.
func hookShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
