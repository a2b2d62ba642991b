package gates

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// HooksDisabledFile is the uninstall tombstone's name in the gate state
// directory: {"schema_version":1,"adapters":[...]}, the adapters whose
// hooks answer {} whatever wiring remains (SPEC §7 uninstall).
const HooksDisabledFile = "hooks-disabled.json"

// HooksDisabled reports whether the adapter's hooks are tombstoned in
// stateDir. A tombstone that cannot be read or parsed disables every
// adapter: hooks then stay inert rather than guess (SPEC §10: a corrupt
// tombstone fails safe).
func HooksDisabled(stateDir, adapter string) bool {
	if stateDir == "" {
		return false
	}
	set, err := readTombstone(stateDir)
	if err != nil {
		return true
	}
	return slices.Contains(set, adapter)
}

// readTombstone reads the tombstone, following no symlink (a linked one
// is an error wrapping fsutil.ErrSymlink); a missing one lists nothing.
func readTombstone(stateDir string) ([]string, error) {
	path := filepath.Join(stateDir, HooksDisabledFile)
	raw, err := readStateFile(stateDir, HooksDisabledFile, 1<<16)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := objects.ParseJSON(raw, objects.ParseOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if v, _ := jdGet(doc, "schema_version"); v.Kind != objects.KindInt || v.Int != 1 {
		return nil, fmt.Errorf("%s: schema_version is not 1", path)
	}
	list, _ := jdGet(doc, "adapters")
	if list.Kind != objects.KindArray {
		return nil, fmt.Errorf("%s: adapters is not a list", path)
	}
	var out []string
	for _, a := range list.Array {
		if a.Kind != objects.KindString {
			return nil, fmt.Errorf("%s: an adapter is not a string", path)
		}
		out = append(out, a.Str)
	}
	return out, nil
}

// setTombstone adds (disabled) or removes the adapter from the tombstone;
// the file is deleted when no adapter is left. A malformed tombstone is
// replaced, since setup and uninstall are the human's explicit choice; a
// symlinked one is refused, never replaced nor written through.
func setTombstone(stateDir, adapter string, disabled bool) error {
	if stateDir == "" {
		return nil
	}
	set, err := readTombstone(stateDir)
	if errors.Is(err, fsutil.ErrSymlink) {
		return err
	}
	if err != nil {
		set = nil
		if !disabled {
			// The corrupt file disabled every adapter; keep the others
			// disabled explicitly while enabling this one.
			for _, a := range HookAdapters {
				if a != adapter {
					set = append(set, a)
				}
			}
		}
	}
	had := slices.Contains(set, adapter)
	switch {
	case disabled && !had:
		set = append(set, adapter)
	case !disabled && had:
		set = slices.DeleteFunc(set, func(s string) bool { return s == adapter })
	case err == nil:
		return nil
	}
	if len(set) == 0 {
		return writeStateFile(stateDir, HooksDisabledFile, nil)
	}
	slices.Sort(set)
	vals := make([]objects.Value, len(set))
	for i, a := range set {
		vals[i] = objects.String(a)
	}
	out, err := encodeJSONDoc(jdObject(jdKV("schema_version", objects.Int(1)), jdKV("adapters", objects.Array(vals...))))
	if err != nil {
		return err
	}
	return writeStateFile(stateDir, HooksDisabledFile, out)
}
