package gates_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/porcelain/gates"
)

// TestHookStateRefusesNonRegular: a tombstone that is not a regular file
// (a directory here; a FIFO is the same) cannot be replaced, so setup and
// uninstall refuse it before they write anything, as they refuse a
// symlinked one; so does setup a record of that kind (uninstall does not
// use a damaged record, and does not rewrite it). No settings file is
// written or removed, and the state is left as it was. Before, both wrote
// the settings files and only then failed on the state file, leaving the
// hooks wired without a record or unwired without a tombstone.
func TestHookStateRefusesNonRegular(t *testing.T) {
	for what, name := range map[string]string{"record": gates.HooksCreatedFile, "tombstone": gates.HooksDisabledFile} {
		t.Run(what, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "gate")
			for verb, run := range map[string]func(gates.HookSetupOptions) (*gates.HookSetupResult, error){
				"setup": gates.SetupHooks, "uninstall": gates.UninstallHooks,
			} {
				if what == "record" && verb == "uninstall" {
					continue
				}
				proj := t.TempDir()
				opt := gates.HookSetupOptions{Project: proj, Adapters: []string{gates.HookAdapterCodex}, StateDir: state}
				if verb == "uninstall" {
					if err := os.RemoveAll(state); err != nil {
						t.Fatal(err)
					}
					if _, err := gates.SetupHooks(opt); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.RemoveAll(filepath.Join(state, name)); err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Join(state, name), 0o755); err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(state, gates.HooksLockFile), "") // the lock may be made
				before, stateBefore := gates.SnapshotNoFollow(t, proj), gates.SnapshotNoFollow(t, state)
				_, err := run(opt)
				if !errors.Is(err, fsutil.ErrNotRegular) {
					t.Fatalf("%s: err %v, want a refusal of the %s as not a regular file", verb, err, what)
				}
				if got := gates.SnapshotNoFollow(t, proj); !maps.Equal(got, before) {
					t.Fatalf("%s changed the project before refusing the %s:\n%v\nwas\n%v", verb, what, got, before)
				}
				if got := gates.SnapshotNoFollow(t, state); !maps.Equal(got, stateBefore) {
					t.Fatalf("%s changed the state before refusing the %s:\n%v\nwas\n%v", verb, what, got, stateBefore)
				}
			}
		})
	}
}
