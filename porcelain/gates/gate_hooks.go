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

// loadSettings reads an agent settings file strictly. A missing file is an
// empty object; anything but a JSON object whose "hooks" are well formed is
// refused (SPEC §7: invalid settings are never modified).
func loadSettings(path string) (doc objects.Value, raw []byte, mode os.FileMode, err error) {
	mode = 0o644
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return jdObject(), nil, mode, nil
	}
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
	raw, err = os.ReadFile(path)
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

// writeSettings stores doc when its encoding differs from raw, creating
// the settings directory; it reports whether the file changed, and the
// bytes the file holds.
func writeSettings(path string, doc objects.Value, raw []byte, mode os.FileMode) (bool, []byte, error) {
	out, err := encodeJSONDoc(doc)
	if err != nil {
		return false, nil, fmt.Errorf("encoding %s: %w", path, err)
	}
	if raw != nil && string(out) == string(raw) {
		return false, out, nil
	}
	if err := fsutil.MkdirAllSync(filepath.Dir(path), 0o755); err != nil {
		return false, nil, fmt.Errorf("creating the directory of %s: %w", path, err)
	}
	if err := fsutil.WriteFileAtomic(path, out, mode); err != nil {
		return false, nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return true, out, nil
}
