package gates

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// HooksCreatedFile is the record, in the gate state directory, of the agent
// settings files gate setup created (and the directories it created for
// them): {"schema_version":1,"created":{"claude":{"dirs":[".claude"],
// "sha256":"<hex>"}}}, sha256 being the digest of the bytes setup last
// wrote. Uninstall removes such a file while it holds those bytes and,
// without tine's entries, nothing else, then those directories when they
// are empty; a file or directory that was there before setup is never in
// it. The record names adapters, not projects: the digest is what ties an
// entry to a file.
const HooksCreatedFile = "hooks-created.json"

// maxHooksCreatedBytes bounds the record: three adapters, a digest and a
// directory or two each.
const maxHooksCreatedBytes = 1 << 16

// createdSettings is one adapter's entry of the record.
type createdSettings struct {
	// sha256 is the hex digest of the bytes setup last wrote to the file.
	sha256 string
	// dirs are the directories setup created for the file, project
	// relative and slash-separated, deepest first.
	dirs []string
}

// readCreated reads the record. A missing file is an empty record; one
// that is not exactly the shape HooksCreatedFile describes (bounded,
// strict JSON, known adapters, directories that hold the adapter's
// settings file) is an error, and the caller does not use it. A record,
// or state directory, that is a symlink is an error wrapping
// fsutil.ErrSymlink, which the caller refuses rather than replace.
func readCreated(stateDir string) (map[string]createdSettings, error) {
	rec := map[string]createdSettings{}
	if stateDir == "" {
		return rec, nil
	}
	p := filepath.Join(stateDir, HooksCreatedFile)
	raw, err := readStateFile(stateDir, HooksCreatedFile, maxHooksCreatedBytes)
	if errors.Is(err, os.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := objects.ParseJSON(raw, objects.ParseOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if err := checkCreated(doc, rec); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return rec, nil
}

// checkCreated validates a parsed record into rec.
func checkCreated(doc objects.Value, rec map[string]createdSettings) error {
	if doc.Kind != objects.KindObject || len(doc.Object) != 2 {
		return errors.New("want an object of schema_version and created")
	}
	if v, _ := jdGet(doc, "schema_version"); v.Kind != objects.KindInt || v.Int != 1 {
		return errors.New("schema_version is not 1")
	}
	created, _ := jdGet(doc, "created")
	if created.Kind != objects.KindObject {
		return errors.New("created is not an object")
	}
	for _, m := range created.Object {
		settings, err := HookSettingsPath(m.Key)
		if err != nil {
			return err
		}
		e := m.Value
		sum, _ := jdString(e, "sha256")
		dirs, _ := jdGet(e, "dirs")
		if e.Kind != objects.KindObject || len(e.Object) != 2 || dirs.Kind != objects.KindArray {
			return fmt.Errorf("created.%s: want an object of dirs and sha256", m.Key)
		}
		if b, err := hex.DecodeString(sum); err != nil || len(b) != sha256.Size || hex.EncodeToString(b) != sum {
			return fmt.Errorf("created.%s: sha256 is not 64 lower-case hex digits", m.Key)
		}
		c := createdSettings{sha256: sum}
		for _, d := range dirs.Array {
			want := path.Dir(settings)
			if len(c.dirs) > 0 {
				want = path.Dir(c.dirs[len(c.dirs)-1])
			}
			if d.Kind != objects.KindString || d.Str != want || want == "." {
				return fmt.Errorf("created.%s: dirs must list directories holding %s, deepest first", m.Key, settings)
			}
			c.dirs = append(c.dirs, d.Str)
		}
		rec[m.Key] = c
	}
	return nil
}

// writeCreated replaces the record, or removes it when it is empty,
// following no symlink.
func writeCreated(stateDir string, rec map[string]createdSettings) error {
	if len(rec) == 0 {
		return writeStateFile(stateDir, HooksCreatedFile, nil)
	}
	adapters := make([]string, 0, len(rec))
	for a := range rec {
		adapters = append(adapters, a)
	}
	slices.Sort(adapters)
	created := jdObject()
	for _, a := range adapters {
		dirs := make([]objects.Value, len(rec[a].dirs))
		for i, d := range rec[a].dirs {
			dirs[i] = objects.String(d)
		}
		jdSet(&created, a, jdObject(jdKV("dirs", objects.Array(dirs...)), jdKV("sha256", objects.String(rec[a].sha256))))
	}
	out, err := encodeJSONDoc(jdObject(jdKV("schema_version", objects.Int(1)), jdKV("created", created)))
	if err != nil {
		return err
	}
	return writeStateFile(stateDir, HooksCreatedFile, out)
}

// digest is the hex SHA-256 of b.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// missingDirs lists the directories holding the project-relative settings
// file rel that do not exist yet, deepest first: those setup creates.
func missingDirs(project, rel string) []string {
	var out []string
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if _, err := os.Lstat(filepath.Join(project, filepath.FromSlash(d))); !errors.Is(err, os.ErrNotExist) {
			break
		}
		out = append(out, d)
	}
	return out
}

// noteCreated updates adapter's record entry after setup wrote out to its
// settings file, which held raw before (nil: absent, so setup created it,
// and the directories in missing). A file that existed is still setup's
// only while it holds the bytes setup last wrote; otherwise someone else
// may have made it, and it leaves the record.
func noteCreated(rec map[string]createdSettings, adapter string, raw, out []byte, missing []string) {
	old, ok := rec[adapter]
	switch {
	case raw == nil:
		rec[adapter] = createdSettings{sha256: digest(out), dirs: missing}
	case ok && old.sha256 == digest(raw):
		rec[adapter] = createdSettings{sha256: digest(out), dirs: old.dirs}
	default:
		delete(rec, adapter)
	}
}

// emptySettings reports whether doc holds nothing but the empty structure
// setup writes for adapter: at most a "hooks" object whose members are the
// adapter's native events, each a list of groups holding no entry and at
// most the adapter's own matcher.
func emptySettings(doc objects.Value, adapter string) bool {
	a, err := lookupHook(adapter, "")
	if err != nil || doc.Kind != objects.KindObject {
		return false
	}
	hooks, at := jdGet(doc, "hooks")
	if len(doc.Object) > 1 || (len(doc.Object) == 1 && at < 0) {
		return false
	}
	if at < 0 {
		return true
	}
	for _, ev := range hooks.Object {
		native := false
		for _, n := range a.native {
			native = native || n == ev.Key
		}
		if !native {
			return false
		}
		for _, g := range ev.Value.Array {
			entries, at := jdGet(g, "hooks")
			matcher, mat := jdGet(g, "matcher")
			members := 1
			if mat >= 0 {
				members++
			}
			if at < 0 || len(entries.Array) > 0 || len(g.Object) != members || (mat >= 0 && (matcher.Kind != objects.KindString || matcher.Str != a.matcher)) {
				return false
			}
		}
	}
	return true
}

// removeCreated deletes the settings file rel (project relative) that
// setup created and that now holds nothing else, then the directories
// setup created for it that are empty, deepest first. Only a regular file
// reached without a symlink is setup's: one replaced by anything else, or
// whose directory was replaced by a link (to a configuration outside the
// project, say), is kept with those directories. It reports whether it
// removed the file, and the directories it removed.
func removeCreated(project, rel string, c createdSettings) (bool, []string, error) {
	p := filepath.Join(project, filepath.FromSlash(rel))
	err := fsutil.RemoveNoSymlinks(project, rel)
	if errors.Is(err, fsutil.ErrSymlink) || errors.Is(err, fsutil.ErrNotRegular) || errors.Is(err, os.ErrNotExist) {
		return false, nil, nil
	}
	if err != nil {
		return false, nil, fmt.Errorf("removing %s: %w", p, err)
	}
	var removed []string
	for _, d := range c.dirs {
		dir := filepath.Join(project, filepath.FromSlash(d))
		fi, err := os.Lstat(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil || !fi.IsDir() {
			break
		}
		if ents, err := os.ReadDir(dir); err != nil || len(ents) > 0 {
			break
		}
		if err := os.Remove(dir); err != nil {
			break // filled meanwhile: kept
		}
		removed = append(removed, d)
	}
	left := filepath.Dir(p)
	if len(removed) > 0 {
		left = filepath.Dir(filepath.Join(project, filepath.FromSlash(removed[len(removed)-1])))
	}
	_ = fsutil.SyncDir(left) // best effort: the removal is durable once this directory is
	return true, removed, nil
}
