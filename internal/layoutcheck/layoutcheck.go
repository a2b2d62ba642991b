// Package layoutcheck checks that a sha256 repository tine wrote is an
// OpenTine repository that OpenTine reads whole, by OpenTine's reading
// rules (SPEC §2.1): OpenTine reads config.json, loose objects at
// objects/<type>/<2 hex>/<62 hex> (skipping every other name under
// objects/, such as tine's objects/pack/ and objects/catalog/), refs/,
// logs/, packs/<64 hex>.pack and shallow, and refuses symlinks and
// hard-linked files. So every object tine holds, wherever it holds it,
// must also be such a loose file. Tests run it after every verb.
package layoutcheck

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// OpenTineConfig is OpenTine's config.json, byte for byte (its sha256
// starts 900d885b).
const OpenTineConfig = `{"format":3,"object_hash":"sha256","repository":"opentine","version":1}` + "\n"

// opentineTop are the top-level entries OpenTine reads or reserves, with
// whether each is a directory.
var opentineTop = map[string]bool{"config.json": false, "objects": true, "refs": true, "logs": true, "packs": true, "indexes": true, "shallow": false}

// tineTop are the top-level entries tine adds, all documented in the
// README's Repository layout and none read by OpenTine: the ref
// transaction gate and journals, gate state, and the storage-packs opt-in
// (harmless itself: the objects it lets tine pack are what Check reports).
var tineTop = map[string]bool{"refs-txn": true, "gate": true, plumbing.StoragePacksFile: false, "remotes.json": false}

var (
	hex2  = regexp.MustCompile(`^[0-9a-f]{2}$`)
	hex62 = regexp.MustCompile(`^[0-9a-f]{62}$`)
	hex64 = regexp.MustCompile(`^[0-9a-f]{64}\.pack$`)
)

// Check returns every way the repository at root (its .tine directory)
// falls short of an OpenTine repository OpenTine reads whole; none means
// it is one. It checks: config.json is OpenTine's bytes; nothing is a
// symlink or a hard-linked file; every loose object file decodes and
// hashes to its path; no write leftovers (temp files, ref guards, staging
// files, shallow.lock) remain; indexes/ is empty; every packs/ frame
// verifies under its digest; every object tine can read (loose or in a
// storage pack) and every object reachable from refs and reflogs is a
// loose file; and a copy of just what OpenTine reads passes tine's fsck
// (SPEC §2.9) with no problem and no warning.
func Check(ctx context.Context, root string) []string {
	c := &checker{root: root, loose: map[objects.OID]bool{}}
	c.config()
	c.top()
	c.tree()
	c.objectsDir()
	c.packsDir()
	c.complete(ctx)
	c.fsckView(ctx)
	return c.problems
}

// checker accumulates problems.
type checker struct {
	root     string
	loose    map[objects.OID]bool
	problems []string
}

func (c *checker) fail(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// config checks config.json byte for byte.
func (c *checker) config() {
	b, err := os.ReadFile(filepath.Join(c.root, "config.json"))
	if err != nil {
		c.fail("config.json: %v", err)
		return
	}
	if string(b) != OpenTineConfig {
		c.fail("config.json is %q, not OpenTine's %q", b, OpenTineConfig)
	}
	if sum := sha256.Sum256(b); !strings.HasPrefix(hex.EncodeToString(sum[:]), "900d885b") {
		c.fail("config.json sha256 %x, OpenTine's starts 900d885b", sum)
	}
}

// top checks the top-level entries: OpenTine's with the right kind, plus
// only the entries tine documents.
func (c *checker) top() {
	ents, err := os.ReadDir(c.root)
	if err != nil {
		c.fail("read %s: %v", c.root, err)
		return
	}
	for _, e := range ents {
		name := e.Name()
		if dir, ok := opentineTop[name]; ok {
			if e.IsDir() != dir {
				c.fail("%s: is a directory: %t, want %t", name, e.IsDir(), dir)
			}
			continue
		}
		if dir, ok := tineTop[name]; ok && e.IsDir() == dir {
			continue
		}
		c.fail("%s: top-level entry neither OpenTine's nor documented by tine (shallow.lock would block OpenTine's shallow writer)", name)
	}
	if ents, err := os.ReadDir(filepath.Join(c.root, "indexes")); err == nil && len(ents) > 0 {
		c.fail("indexes/ is reserved and must stay empty; holds %s", ents[0].Name())
	}
}

// tree refuses symlinks and hard-linked files anywhere, and ref guards or
// staging files left under refs/ (OpenTine's writer creates <ref>.lock
// with O_EXCL and fails while one exists).
func (c *checker) tree() {
	err := filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(c.root, p)
		rel = filepath.ToSlash(rel)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			c.fail("%s is a symlink", rel)
		case fi.Mode().IsRegular():
			if n := linkCount(fi); n > 1 {
				c.fail("%s is hard-linked (%d links)", rel, n)
			}
			if strings.HasPrefix(rel, "refs/") && strings.HasSuffix(rel, ".lock") {
				c.fail("%s: a ref guard or staging file was left behind", rel)
			}
			if strings.HasPrefix(filepath.Base(rel), ".tmp") {
				c.fail("%s: a temporary file was left behind", rel)
			}
		case fi.IsDir() && strings.HasPrefix(filepath.Base(rel), ".tmp"):
			c.fail("%s: a scratch directory was left behind", rel)
		}
		return nil
	})
	if err != nil {
		c.fail("walk: %v", err)
	}
}

// objectsDir reads objects/ as OpenTine enumerates it: type directories,
// 2-hex fan-out directories, 62-hex files; every such file must decode
// and hash to its path. Other names are skipped by OpenTine, so only
// their kind is checked (a tine leftover is reported by tree).
func (c *checker) objectsDir() {
	dir := filepath.Join(c.root, "objects")
	types, err := os.ReadDir(dir)
	if err != nil {
		c.fail("read objects/: %v", err)
		return
	}
	for _, te := range types {
		ty := objects.Type(te.Name())
		if !ty.Valid() || !te.IsDir() {
			continue
		}
		fans, _ := os.ReadDir(filepath.Join(dir, te.Name()))
		for _, fe := range fans {
			if !hex2.MatchString(fe.Name()) || !fe.IsDir() {
				c.fail("objects/%s/%s: not a fan-out directory", ty, fe.Name())
				continue
			}
			files, _ := os.ReadDir(filepath.Join(dir, te.Name(), fe.Name()))
			for _, oe := range files {
				c.looseFile(ty, fe.Name(), oe.Name())
			}
		}
	}
}

// looseFile checks one file of a fan-out directory.
func (c *checker) looseFile(ty objects.Type, fan, name string) {
	rel := fmt.Sprintf("objects/%s/%s/%s", ty, fan, name)
	if !hex62.MatchString(name) {
		return // skipped by OpenTine; tree reports tine's leftovers
	}
	id, err := objects.ParseOIDFor(objects.SHA256, fmt.Sprintf("%s:sha256:%s%s", ty, fan, name))
	if err != nil {
		c.fail("%s: %v", rel, err)
		return
	}
	b, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		c.fail("%s: %v", rel, err)
		return
	}
	if _, err := objects.DecodeEnvelopeAs(id, b); err != nil {
		c.fail("%s: not a valid envelope hashing to its name: %v", rel, err)
		return
	}
	c.loose[id] = true
}

// packsDir checks packs/: only <64 hex>.pack TINEPACK3 frames, each
// verifying under the digest it is named by.
func (c *checker) packsDir() {
	ents, err := os.ReadDir(filepath.Join(c.root, "packs"))
	if err != nil {
		c.fail("read packs/: %v", err)
		return
	}
	for _, e := range ents {
		if !hex64.MatchString(e.Name()) {
			c.fail("packs/%s: not a <64 hex>.pack frame", e.Name())
			continue
		}
		b, err := os.ReadFile(filepath.Join(c.root, "packs", e.Name()))
		if err != nil {
			c.fail("packs/%s: %v", e.Name(), err)
			continue
		}
		pf, err := objects.InspectPack(b, objects.SHA256)
		if err != nil {
			c.fail("packs/%s: %v", e.Name(), err)
			continue
		}
		if pf.ID != "sha256:"+strings.TrimSuffix(e.Name(), ".pack") {
			c.fail("packs/%s: frame id %s differs from its name", e.Name(), pf.ID)
		}
	}
}

// complete requires every object tine reads, and every object reachable
// from refs and reflogs, to be one of the loose files.
func (c *checker) complete(ctx context.Context) {
	r, err := plumbing.Open(c.root)
	if err != nil {
		c.fail("open with tine: %v", err)
		return
	}
	defer r.Close()
	if r.Algo() != objects.SHA256 {
		c.fail("object format %s, want sha256", r.Algo())
		return
	}
	var notLoose []string
	err = r.Objects().List(ctx, func(id objects.OID) error {
		if !c.loose[id] {
			notLoose = append(notLoose, id.String())
		}
		return nil
	})
	if err != nil {
		c.fail("list objects: %v", err)
	}
	if len(notLoose) > 0 {
		c.fail("%d object(s) tine holds are not loose files, so OpenTine cannot read them, e.g. %s", len(notLoose), notLoose[0])
	}
	reach, err := plumbing.Reachable(ctx, r)
	if err != nil {
		c.fail("reachability: %v", err)
		return
	}
	// Reachable lists the shallow boundary too (links end there); those
	// oids are absent by definition (SPEC §2.7) and OpenTine reads the
	// shallow file the same way.
	shallow, err := r.ShallowSet()
	if err != nil {
		c.fail("shallow file: %v", err)
		return
	}
	var missing []string
	for id := range reach {
		if !c.loose[id] && !shallow[id] {
			missing = append(missing, id.String())
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		c.fail("%d object(s) reachable from refs and reflogs are not loose files, e.g. %s", len(missing), missing[0])
	}
}

// fsckView copies exactly what OpenTine reads into a scratch directory and
// runs tine's fsck (SPEC §2.9) over it: any object known only from a
// storage pack shows up there as a missing link or ref target.
func (c *checker) fsckView(ctx context.Context) {
	view, err := os.MkdirTemp("", "opentine-view-")
	if err != nil {
		c.fail("scratch: %v", err)
		return
	}
	defer os.RemoveAll(view)
	err = filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(c.root, p)
		if rel == "." {
			return nil
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		_, read := opentineTop[parts[0]]
		if parts[0] == "objects" && len(parts) == 2 && !objects.Type(parts[1]).Valid() {
			read = false // objects/pack/, objects/catalog/: skipped by OpenTine
		}
		if !read {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		dst := filepath.Join(view, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		c.fail("copy OpenTine's view: %v", err)
		return
	}
	r, err := plumbing.Open(view)
	if err != nil {
		c.fail("open OpenTine's view: %v", err)
		return
	}
	defer r.Close()
	res, err := plumbing.Fsck(ctx, r, plumbing.FsckOptions{})
	if err != nil {
		c.fail("fsck of OpenTine's view: %v", err)
		return
	}
	for _, p := range append(res.Problems, res.Warnings...) {
		c.fail("fsck of OpenTine's view: %s %s%s%s: %s", p.Code, p.Object, p.Ref, p.Path, p.Message)
	}
}
