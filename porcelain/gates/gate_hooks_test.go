package gates_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/gates"
)

// foreignSettings is a settings file a user already has: unrelated keys,
// a foreign hook on an event tine also uses, and one tine never touches.
const foreignSettings = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(go test:*)"], "big": 123456789012345678901234567890},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    "Notification": [{"matcher": "", "hooks": [{"type": "command", "command": "say hi"}]}],
    "AfterAgent": [{"hooks": [{"type": "command", "command": "./lint.sh"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": []}]
  }
}
`

func readJSON(t *testing.T, path string) objects.Value {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := objects.ParseJSON(raw, objects.ParseOptions{})
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, raw)
	}
	return v
}

// canon is v's canonical text; v2 keeps integers beyond 2^53 exact.
func canon(t *testing.T, v objects.Value) string {
	t.Helper()
	b, err := objects.CanonV2(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHookSetupUninstallRoundTrip(t *testing.T) {
	for _, adapter := range gates.HookAdapters {
		t.Run(adapter, func(t *testing.T) {
			proj := t.TempDir()
			state := filepath.Join(t.TempDir(), "gate")
			rel, _ := gates.HookSettingsPath(adapter)
			path := filepath.Join(proj, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(foreignSettings), 0o600); err != nil {
				t.Fatal(err)
			}
			before := readJSON(t, path)
			opt := gates.HookSetupOptions{Project: proj, Adapters: []string{adapter}, StateDir: state}
			res, err := gates.SetupHooks(opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Files) != 1 || !res.Files[0].Changed || res.Files[0].Entries != 6 {
				t.Fatalf("setup result %+v", res.Files)
			}
			first, _ := os.ReadFile(path)
			doc := readJSON(t, path)
			hooks, _ := doc.Get("hooks")
			for _, ev := range gates.HookEvents {
				native, _ := gates.NativeHookEvent(adapter, ev)
				groups, ok := hooks.Get(native)
				if !ok {
					t.Fatalf("no %s hooks", native)
				}
				want := "tine gate hook --adapter " + adapter + " --event " + ev + " --project "
				if !strings.Contains(canon(t, groups), want) {
					t.Errorf("%s: no entry %q in %s", native, want, canon(t, groups))
				}
			}
			if s := string(first); !strings.Contains(s, "notify-send done") || !strings.Contains(s, "123456789012345678901234567890") || !strings.Contains(s, `"model": "opus"`) {
				t.Errorf("foreign settings lost:\n%s", s)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want the file's own 0600", fi.Mode().Perm())
			}
			// Idempotent: a second setup changes nothing.
			res, err = gates.SetupHooks(opt)
			if err != nil || res.Files[0].Changed {
				t.Fatalf("second setup: %+v %v", res, err)
			}
			if again, _ := os.ReadFile(path); string(again) != string(first) {
				t.Errorf("second setup rewrote the file:\n%s\n---\n%s", first, again)
			}
			// Uninstall restores the user's settings, meaning for meaning.
			res, err = gates.UninstallHooks(opt)
			if err != nil || res.Files[0].Entries != 6 || !res.Files[0].Changed {
				t.Fatalf("uninstall: %+v %v", res, err)
			}
			if got := readJSON(t, path); canon(t, got) != canon(t, before) {
				t.Errorf("round trip changed the settings:\n%s\nwant\n%s", canon(t, got), canon(t, before))
			}
			if !gates.HooksDisabled(state, adapter) {
				t.Error("uninstall wrote no tombstone")
			}
			res, err = gates.UninstallHooks(opt)
			if err != nil || res.Files[0].Entries != 0 || res.Files[0].Changed {
				t.Fatalf("second uninstall: %+v %v", res, err)
			}
			if _, err := gates.SetupHooks(opt); err != nil || gates.HooksDisabled(state, adapter) {
				t.Fatalf("setup after uninstall: %v, tombstone kept %v", err, gates.HooksDisabled(state, adapter))
			}
		})
	}
}

func TestHookSetupRewritesInPlaceAndMatchers(t *testing.T) {
	proj := t.TempDir()
	path := filepath.Join(proj, ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	old := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/old/tine gate hook --adapter claude --event stop --project x"},{"type":"command","command":"keep-me"}]}]}}`
	os.WriteFile(path, []byte(old), 0o644)
	if _, err := gates.SetupHooks(gates.HookSetupOptions{Project: proj, Adapters: []string{"claude"}, Executable: "tine-dev"}); err != nil {
		t.Fatal(err)
	}
	doc := readJSON(t, path)
	hooks, _ := doc.Get("hooks")
	stop, _ := hooks.Get("Stop")
	if len(stop.Array) != 1 {
		t.Fatalf("stop groups: %s", canon(t, stop))
	}
	entries, _ := stop.Array[0].Get("hooks")
	c0, _ := entries.Array[0].Get("command")
	c1, _ := entries.Array[1].Get("command")
	if !strings.HasPrefix(c0.Str, "tine-dev gate hook --adapter claude --event stop") || c1.Str != "keep-me" {
		t.Errorf("not rewritten in place: %s", canon(t, stop))
	}
	pre, _ := hooks.Get("PreToolUse")
	if m, _ := pre.Array[0].Get("matcher"); m.Str != "Bash|Edit|Write" {
		t.Errorf("pre-tool matcher %q", m.Str)
	}
	if _, err := gates.SetupHooks(gates.HookSetupOptions{Project: proj, Adapters: []string{"gemini"}}); err != nil {
		t.Fatal(err)
	}
	g := readJSON(t, filepath.Join(proj, ".gemini", "settings.json"))
	gh, _ := g.Get("hooks")
	bt, _ := gh.Get("BeforeTool")
	if m, _ := bt.Array[0].Get("matcher"); m.Str != "run_shell_command|write_file|replace" {
		t.Errorf("gemini matcher %q", m.Str)
	}
	e, _ := bt.Array[0].Get("hooks")
	if n, _ := e.Array[0].Get("name"); n.Str != "tine-gate-pre-tool" {
		t.Errorf("gemini hook name %q", n.Str)
	}
}

func TestHookSetupRefusesInvalidSettings(t *testing.T) {
	bad := []string{
		`{"a":1,"a":2}`,
		`[1]`,
		`{"hooks":[]}`,
		`{"hooks":{"Stop":{}}}`,
		`{"hooks":{"Stop":[1]}}`,
		`{"hooks":{"Stop":[{"hooks":{}}]}}`,
		`{"hooks":{"Stop":[{"hooks":[{"command":7}]}]}}`,
		`{"hooks":{"Stop":[{"matcher":1,"hooks":[]}]}}`,
		`{"x":`,
	}
	for _, src := range bad {
		proj := t.TempDir()
		// A valid claude file next to the bad codex file must stay untouched too.
		claude := filepath.Join(proj, ".claude", "settings.local.json")
		os.MkdirAll(filepath.Dir(claude), 0o755)
		os.WriteFile(claude, []byte(`{"keep":true}`), 0o644)
		path := filepath.Join(proj, ".codex", "hooks.json")
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(src), 0o644)
		_, err := gates.SetupHooks(gates.HookSetupOptions{Project: proj})
		if !errors.Is(err, gates.ErrHookSettings) {
			t.Errorf("%s: err %v", src, err)
		}
		if got, _ := os.ReadFile(path); string(got) != src {
			t.Errorf("%s: modified to %s", src, got)
		}
		if got, _ := os.ReadFile(claude); string(got) != `{"keep":true}` {
			t.Errorf("%s: claude settings modified to %s", src, got)
		}
		if _, err := gates.UninstallHooks(gates.HookSetupOptions{Project: proj, Adapters: []string{"codex"}}); !errors.Is(err, gates.ErrHookSettings) {
			t.Errorf("%s: uninstall err %v", src, err)
		}
	}
}

func TestHookCommandNeverEmbedsPathsInGit(t *testing.T) {
	top := t.TempDir()
	os.Mkdir(filepath.Join(top, ".git"), 0o755)
	sub := filepath.Join(top, "svc", "api")
	os.MkdirAll(sub, 0o755)
	if _, err := gates.SetupHooks(gates.HookSetupOptions{Project: sub, Adapters: []string{"claude"}}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(sub, ".claude", "settings.local.json"))
	if strings.Contains(string(raw), top) {
		t.Errorf("absolute path embedded:\n%s", raw)
	}
	if !strings.Contains(string(raw), `--project \"$(git rev-parse --show-toplevel)/svc/api\"`) {
		t.Errorf("no git-relative project:\n%s", raw)
	}
}

func TestHookTombstoneFailsSafe(t *testing.T) {
	state := t.TempDir()
	if gates.HooksDisabled(state, "claude") {
		t.Fatal("disabled without a tombstone")
	}
	os.WriteFile(filepath.Join(state, gates.HooksDisabledFile), []byte("{not json"), 0o644)
	for _, a := range gates.HookAdapters {
		if !gates.HooksDisabled(state, a) {
			t.Errorf("%s: a corrupt tombstone must disable hooks", a)
		}
	}
	proj := t.TempDir()
	if _, err := gates.SetupHooks(gates.HookSetupOptions{Project: proj, Adapters: []string{"codex"}, StateDir: state}); err != nil {
		t.Fatal(err)
	}
	if gates.HooksDisabled(state, "codex") || !gates.HooksDisabled(state, "claude") {
		t.Error("setup over a corrupt tombstone must enable only its adapter")
	}
	if _, err := gates.SetupHooks(gates.HookSetupOptions{Project: proj, Adapters: []string{"unknown"}}); !errors.Is(err, gates.ErrHookAdapter) {
		t.Errorf("unknown adapter: %v", err)
	}
}
