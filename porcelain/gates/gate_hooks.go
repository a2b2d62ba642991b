package gates

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// The agent CLIs gate setup wires (SPEC §7).
const (
	HookAdapterClaude = "claude"
	HookAdapterCodex  = "codex"
	HookAdapterGemini = "gemini"
)

// HookAdapters lists every adapter, in the order "all" installs them.
var HookAdapters = []string{HookAdapterClaude, HookAdapterCodex, HookAdapterGemini}

// tine's hook events, the same for every adapter (SPEC §7); each adapter
// maps them to its own native event names.
const (
	HookEventSessionStart = "session-start"
	HookEventUserPrompt   = "user-prompt"
	HookEventPreTool      = "pre-tool"
	HookEventPostTool     = "post-tool"
	HookEventPreCompact   = "pre-compact"
	HookEventStop         = "stop"
)

// HookEvents lists every hook event in lifecycle order.
var HookEvents = []string{HookEventSessionStart, HookEventUserPrompt, HookEventPreTool, HookEventPostTool, HookEventPreCompact, HookEventStop}

// Sentinel errors of the hook adapters.
var (
	// ErrHookAdapter reports an unknown adapter or event name.
	ErrHookAdapter = errors.New("unknown hook adapter or event")
	// ErrHookSettings reports an agent settings file gate setup refuses to
	// edit (not strict JSON, not an object, malformed hooks); nothing is
	// modified.
	ErrHookSettings = errors.New("agent settings file refused")
)

// hookAdapter is one CLI's wiring: where its project settings live, its
// native event names and the tool matcher of its tool events.
type hookAdapter struct {
	settings string // project-relative, slash-separated
	native   map[string]string
	matcher  string
	named    bool // gemini names each hook entry
}

// hookAdapterTable is built on first use: most tine processes never wire a
// hook, and package-level maps are built at every process start.
var hookAdapterTable = sync.OnceValue(func() map[string]hookAdapter {
	claudeNative := map[string]string{
		HookEventSessionStart: "SessionStart", HookEventUserPrompt: "UserPromptSubmit", HookEventPreTool: "PreToolUse",
		HookEventPostTool: "PostToolUse", HookEventPreCompact: "PreCompact", HookEventStop: "Stop",
	}
	return map[string]hookAdapter{
		HookAdapterClaude: {settings: ".claude/settings.local.json", native: claudeNative, matcher: "Bash|Edit|Write"},
		HookAdapterCodex:  {settings: ".codex/hooks.json", native: claudeNative, matcher: "Bash|Edit|Write"},
		HookAdapterGemini: {settings: ".gemini/settings.json", native: map[string]string{
			HookEventSessionStart: "SessionStart", HookEventUserPrompt: "BeforeAgent", HookEventPreTool: "BeforeTool",
			HookEventPostTool: "AfterTool", HookEventPreCompact: "PreCompress", HookEventStop: "AfterAgent",
		}, matcher: "run_shell_command|write_file|replace", named: true},
	}
})

// lookupHook returns the adapter's wiring, checking the event when given.
func lookupHook(adapter, event string) (hookAdapter, error) {
	a, ok := hookAdapterTable()[adapter]
	if !ok {
		return a, fmt.Errorf("%w: adapter %q (want claude, codex or gemini)", ErrHookAdapter, adapter)
	}
	if event != "" && a.native[event] == "" {
		return a, fmt.Errorf("%w: event %q (want one of %s)", ErrHookAdapter, event, strings.Join(HookEvents, ", "))
	}
	return a, nil
}

// HookSettingsPath returns the project-relative settings file an adapter's
// hooks are written to: .claude/settings.local.json, .codex/hooks.json or
// .gemini/settings.json.
func HookSettingsPath(adapter string) (string, error) {
	a, err := lookupHook(adapter, "")
	return a.settings, err
}

// NativeHookEvent returns the adapter's own name for a tine hook event
// (claude "Stop", gemini "AfterAgent", ...).
func NativeHookEvent(adapter, event string) (string, error) {
	a, err := lookupHook(adapter, event)
	return a.native[event], err
}

// isToolEvent reports whether the event fires around tool calls and so
// carries the adapter's matcher.
func isToolEvent(event string) bool {
	return event == HookEventPreTool || event == HookEventPostTool
}

// ownedHookCommand reports whether a hook command line is tine's for the
// adapter and, when event is not empty, for that event: setup rewrites such
// entries in place and uninstall removes them, leaving every other entry.
func ownedHookCommand(cmd, adapter, event string) bool {
	if !strings.Contains(cmd, "tine") {
		return false
	}
	marker := " gate hook --adapter " + adapter + " --event "
	i := strings.Index(cmd, marker)
	if i < 0 {
		return false
	}
	if event == "" {
		return true
	}
	rest := cmd[i+len(marker):]
	return rest == event || strings.HasPrefix(rest, event+" ")
}

// loadSettings reads the agent settings file rel (project relative)
// strictly. A missing file is an empty object; anything but a JSON object
// whose "hooks" are well formed is refused (SPEC §7: invalid settings are
// never modified), and so is a file reached through a symlink, at the file
// or at a directory holding it: tine never writes through one, which could
// point outside the project.
func loadSettings(project, rel string) (doc objects.Value, raw []byte, mode os.FileMode, err error) {
	path := filepath.Join(project, filepath.FromSlash(rel))
	mode = 0o644
	f, err := fsutil.OpenNoSymlinks(project, rel)
	if errors.Is(err, os.ErrNotExist) {
		return jdObject(), nil, mode, nil
	}
	if errors.Is(err, fsutil.ErrSymlink) {
		return doc, nil, mode, settingsLinkError(project, rel, err)
	}
	if err != nil {
		return doc, nil, mode, fmt.Errorf("%w: %s: %w", ErrHookSettings, path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return doc, nil, mode, fmt.Errorf("%w: %s: %w", ErrHookSettings, path, err)
	}
	if !fi.Mode().IsRegular() {
		return doc, nil, mode, fmt.Errorf("%w: %s is not a regular file", ErrHookSettings, path)
	}
	if fi.Size() > maxSettingsBytes {
		return doc, nil, mode, fmt.Errorf("%w: %s is larger than %d bytes", ErrHookSettings, path, maxSettingsBytes)
	}
	mode = fi.Mode().Perm()
	raw, err = fsutil.ReadRegular(f, maxSettingsBytes)
	if err != nil {
		return doc, nil, mode, fmt.Errorf("%w: %s: %w", ErrHookSettings, path, err)
	}
	doc, err = objects.ParseJSON(raw, objects.ParseOptions{MaxIntDigits: 4096})
	if err != nil {
		return doc, nil, mode, fmt.Errorf("%w: %s is not strict JSON: %w", ErrHookSettings, path, err)
	}
	if doc.Kind != objects.KindObject {
		return doc, nil, mode, fmt.Errorf("%w: %s is not a JSON object", ErrHookSettings, path)
	}
	if err := checkHooksShape(doc); err != nil {
		return doc, nil, mode, fmt.Errorf("%w: %s: %w", ErrHookSettings, path, err)
	}
	return doc, raw, mode, nil
}

// settingsLinkError explains the refusal of a settings file reached
// through a symlink, naming the link when it can still be found.
func settingsLinkError(project, rel string, err error) error {
	if p := linkedComponent(project, rel); p != "" {
		err = fmt.Errorf("%s %w", p, fsutil.ErrSymlink)
	} else {
		err = fmt.Errorf("%s: %w", filepath.Join(project, filepath.FromSlash(rel)), err)
	}
	return fmt.Errorf("%w: %w: tine never reads or writes agent settings through a symlink, which could point outside the project; replace the link with a copy of what it points to, or edit the file it points to by hand", ErrHookSettings, err)
}

// checkHooksShape validates every event's groups and entries, so a merge
// never has to guess at a shape it does not understand.
func checkHooksShape(doc objects.Value) error {
	hooks, at := jdGet(doc, "hooks")
	if at < 0 {
		return nil
	}
	if hooks.Kind != objects.KindObject {
		return errors.New(`"hooks" is not an object`)
	}
	for _, ev := range hooks.Object {
		if ev.Value.Kind != objects.KindArray {
			return fmt.Errorf("hooks.%s is not a list", ev.Key)
		}
		for gi, g := range ev.Value.Array {
			if g.Kind != objects.KindObject {
				return fmt.Errorf("hooks.%s[%d] is not an object", ev.Key, gi)
			}
			if m, i := jdGet(g, "matcher"); i >= 0 && m.Kind != objects.KindString {
				return fmt.Errorf("hooks.%s[%d].matcher is not a string", ev.Key, gi)
			}
			entries, i := jdGet(g, "hooks")
			if i < 0 || entries.Kind != objects.KindArray {
				return fmt.Errorf("hooks.%s[%d].hooks is not a list", ev.Key, gi)
			}
			for ei, e := range entries.Array {
				if e.Kind != objects.KindObject {
					return fmt.Errorf("hooks.%s[%d].hooks[%d] is not an object", ev.Key, gi, ei)
				}
				if c, i := jdGet(e, "command"); i >= 0 && c.Kind != objects.KindString {
					return fmt.Errorf("hooks.%s[%d].hooks[%d].command is not a string", ev.Key, gi, ei)
				}
			}
		}
	}
	return nil
}

// writeSettings stores doc in the settings file rel (project relative)
// when its encoding differs from raw, creating the project directory and
// the file's directories, and
// following no symlink (fsutil.WriteFileAtomicNoSymlinks); it reports
// whether the file changed, and the bytes the file holds.
func writeSettings(project, rel string, doc objects.Value, raw []byte, mode os.FileMode) (bool, []byte, error) {
	path := filepath.Join(project, filepath.FromSlash(rel))
	out, err := encodeJSONDoc(doc)
	if err != nil {
		return false, nil, fmt.Errorf("encoding %s: %w", path, err)
	}
	if raw != nil && string(out) == string(raw) {
		return false, out, nil
	}
	if err := fsutil.MkdirAllSync(project, 0o755); err != nil {
		return false, nil, fmt.Errorf("creating %s: %w", project, err)
	}
	err = fsutil.WriteFileAtomicNoSymlinks(project, rel, out, mode)
	if errors.Is(err, fsutil.ErrSymlink) {
		return false, nil, settingsLinkError(project, rel, err)
	}
	if err != nil {
		return false, nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return true, out, nil
}
