package gates_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/porcelain/gates"
)

// tree lists the project's files and directories with the bytes of each
// file, so a test can ask for a project to be left exactly as it was.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHookUninstallRemovesWhatSetupCreated: in a fresh project, setup then
// uninstall leaves the project as it was: no {} files, no empty
// directories, and no record in the state directory.
func TestHookUninstallRemovesWhatSetupCreated(t *testing.T) {
	proj := t.TempDir()
	state := filepath.Join(t.TempDir(), "gate")
	opt := gates.HookSetupOptions{Project: proj, StateDir: state}
	if _, err := gates.SetupHooks(opt); err != nil {
		t.Fatal(err)
	}
	// Setup run again (the idempotent rewrite) keeps the files setup's.
	if _, err := gates.SetupHooks(opt); err != nil {
		t.Fatal(err)
	}
	res, err := gates.UninstallHooks(opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		dir := filepath.Dir(f.Path)
		if !f.Removed || !f.Changed || f.Entries != 6 || !slices.Equal(f.RemovedDirs, []string{dir}) {
			t.Errorf("uninstall %+v: want the file and %s removed", f, dir)
		}
	}
	if got := tree(t, proj); len(got) != 0 {
		t.Errorf("setup then uninstall left %v", got)
	}
	if _, err := os.Stat(filepath.Join(state, gates.HooksCreatedFile)); !os.IsNotExist(err) {
		t.Errorf("the record of created files stays: %v", err)
	}
	// A second uninstall finds nothing to do.
	res, err = gates.UninstallHooks(opt)
	if err != nil || res.Files[0].Removed || res.Files[0].Changed {
		t.Fatalf("second uninstall: %+v %v", res, err)
	}
}

// TestHookUninstallKeepsWhatWasThereOrGotContent: a file or directory that
// was there before setup, or that someone put content in, is kept; files
// setup never touched keep their bytes.
func TestHookUninstallKeepsWhatWasThereOrGotContent(t *testing.T) {
	proj := t.TempDir()
	state := filepath.Join(t.TempDir(), "gate")
	// Claude: the directory and another settings file exist; setup creates
	// only settings.local.json, which an empty object already is for codex.
	writeFile(t, filepath.Join(proj, ".claude", "settings.json"), "{\"model\":\"opus\"}")
	writeFile(t, filepath.Join(proj, ".codex", "hooks.json"), "{}")
	before := tree(t, proj)
	opt := gates.HookSetupOptions{Project: proj, StateDir: state}
	if _, err := gates.SetupHooks(opt); err != nil {
		t.Fatal(err)
	}
	// After setup, the user adds a file in .gemini/, which setup created.
	writeFile(t, filepath.Join(proj, ".gemini", "notes.txt"), "mine\n")
	res, err := gates.UninstallHooks(opt)
	if err != nil {
		t.Fatal(err)
	}
	got := tree(t, proj)
	want := map[string]string{
		".claude/":              "",
		".claude/settings.json": "{\"model\":\"opus\"}", // byte for byte
		".codex/":               "",
		".codex/hooks.json":     "{}\n", // existed: kept, tine's entries gone
		".gemini/":              "",
		".gemini/notes.txt":     "mine\n",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q (before: %q)", k, got[k], v, before[k])
		}
	}
	if len(got) != len(want) {
		t.Errorf("project after uninstall: %v", got)
	}
	for _, f := range res.Files {
		if f.Removed != (f.Adapter != gates.HookAdapterCodex) || len(f.RemovedDirs) != 0 {
			t.Errorf("uninstall %+v", f)
		}
	}
}

// TestHookUninstallKeepsAddedContent: the user's content in a file setup
// created keeps it (without tine's entries), and so its directory.
func TestHookUninstallKeepsAddedContent(t *testing.T) {
	proj := t.TempDir()
	opt := gates.HookSetupOptions{Project: proj, Adapters: []string{gates.HookAdapterClaude}, StateDir: filepath.Join(t.TempDir(), "gate")}
	if _, err := gates.SetupHooks(opt); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(proj, ".claude", "settings.local.json")
	raw, _ := os.ReadFile(path)
	edited := strings.Replace(string(raw), "{\n", "{\n  \"model\": \"opus\",\n", 1)
	writeFile(t, path, edited)
	res, err := gates.UninstallHooks(opt)
	if err != nil || res.Files[0].Removed || res.Files[0].Entries != 6 {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{\n  \"model\": \"opus\"\n}\n" {
		t.Errorf("kept settings %q", got)
	}
}

// TestHookUninstallKeepsAFileMadeAgain: a file setup created that someone
// deleted and made again is theirs once setup runs over it (its bytes are
// not what setup wrote), even when it ends up holding nothing.
func TestHookUninstallKeepsAFileMadeAgain(t *testing.T) {
	proj := t.TempDir()
	opt := gates.HookSetupOptions{Project: proj, Adapters: []string{gates.HookAdapterGemini}, StateDir: filepath.Join(t.TempDir(), "gate")}
	if _, err := gates.SetupHooks(opt); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(proj, ".gemini", "settings.json")
	writeFile(t, path, "{ }")
	if _, err := gates.SetupHooks(opt); err != nil {
		t.Fatal(err)
	}
	res, err := gates.UninstallHooks(opt)
	if err != nil || res.Files[0].Removed {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{}\n" {
		t.Errorf("kept settings %q", got)
	}
}

// TestHookUninstallWithoutRecord: without a state directory, or with a
// damaged record, nothing says which files setup created: all are kept,
// and a damaged record is named and left as it is.
func TestHookUninstallWithoutRecord(t *testing.T) {
	proj := t.TempDir()
	opt := gates.HookSetupOptions{Project: proj, Adapters: []string{gates.HookAdapterCodex}}
	if _, err := gates.SetupHooks(opt); err != nil {
		t.Fatal(err)
	}
	if _, err := gates.UninstallHooks(opt); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, proj); got[".codex/hooks.json"] != "{}\n" {
		t.Errorf("without a state directory: %v", got)
	}

	proj = t.TempDir()
	opt = gates.HookSetupOptions{Project: proj, Adapters: []string{gates.HookAdapterCodex}, StateDir: filepath.Join(t.TempDir(), "gate")}
	if _, err := gates.SetupHooks(opt); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(opt.StateDir, gates.HooksCreatedFile)
	for _, bad := range []string{
		`{"schema_version":1,"created":{"codex":{"dirs":[".."],"sha256":"` + strings.Repeat("0", 64) + `"}}}`,
		`{"schema_version":1,"created":{"codex":{"dirs":[".codex"],"sha256":"x"}}}`,
		`{"schema_version":2,"created":{}}`,
		`{"schema_version":1,"created":{"other":{"dirs":[],"sha256":"` + strings.Repeat("0", 64) + `"}}}`,
		strings.Repeat(" ", 1<<16+1),
	} {
		writeFile(t, record, bad)
		res, err := gates.UninstallHooks(opt)
		if err != nil || res.Files[0].Removed || !strings.Contains(res.Note, gates.HooksCreatedFile) {
			t.Fatalf("damaged record %.40q: %+v %v", bad, res, err)
		}
		if got, _ := os.ReadFile(record); string(got) != bad {
			t.Fatalf("uninstall rewrote a damaged record")
		}
		if _, err := os.Stat(filepath.Join(proj, ".codex", "hooks.json")); err != nil {
			t.Fatalf("damaged record %.40q: %v", bad, err)
		}
	}
	// Setup replaces it and says so.
	res, err := gates.SetupHooks(opt)
	if err != nil || !strings.Contains(res.Note, "replaced") {
		t.Fatalf("setup over a damaged record: %+v %v", res, err)
	}
}

// TestHookUninstallKeepsAFileSetupDidNotWrite: the record is the
// repository's and names adapters, not projects, so it is used only on a
// file that still holds the bytes setup last wrote. Setup run in a
// subdirectory (created there) does not make the project's own settings
// file, which was there before and holds nothing, setup's; nor does a file
// deleted and made again by someone else.
func TestHookUninstallKeepsAFileSetupDidNotWrite(t *testing.T) {
	proj := t.TempDir()
	state := filepath.Join(t.TempDir(), "gate")
	mine := filepath.Join(proj, ".claude", "settings.local.json")
	writeFile(t, mine, "{}")
	sub := gates.HookSetupOptions{Project: filepath.Join(proj, "sub"), Adapters: []string{gates.HookAdapterClaude}, StateDir: state}
	if _, err := gates.SetupHooks(sub); err != nil {
		t.Fatal(err)
	}
	res, err := gates.UninstallHooks(gates.HookSetupOptions{Project: proj, Adapters: sub.Adapters, StateDir: state})
	if err != nil || res.Files[0].Removed || len(res.Files[0].RemovedDirs) != 0 {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if got, err := os.ReadFile(mine); err != nil || string(got) != "{}" {
		t.Fatalf("the project's own settings file: %q, %v", got, err)
	}
	// The entry stays the subdirectory's: its uninstall removes its file.
	if res, err := gates.UninstallHooks(sub); err != nil || !res.Files[0].Removed {
		t.Fatalf("uninstall in the subdirectory: %+v %v", res, err)
	}

	// Made again by someone else, holding nothing: not setup's bytes.
	if _, err := gates.SetupHooks(sub); err != nil {
		t.Fatal(err)
	}
	again := filepath.Join(sub.Project, ".claude", "settings.local.json")
	writeFile(t, again, "{\"hooks\": {}}")
	if res, err := gates.UninstallHooks(sub); err != nil || res.Files[0].Removed {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if got, err := os.ReadFile(again); err != nil || string(got) != "{\"hooks\": {}}" {
		t.Fatalf("the file made again: %q, %v", got, err)
	}
}
