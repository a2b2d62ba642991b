package plumbing

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/objects/pack"
)

// VerifyPackOptions configures VerifyPack.
type VerifyPackOptions struct {
	// Packs names the packs to check: "pack-<hex>", with or without
	// ".pack"/".idx" and a directory; empty means every pack.
	Packs []string
}

// PackCheck is the verdict on one storage pack.
type PackCheck struct {
	Pack    string `json:"pack"`
	Objects int    `json:"objects"`
	OK      bool   `json:"ok"`
	// Error says what is wrong, naming the damaged entries' objects.
	Error string `json:"error,omitempty"`
}

// VerifyPackResult is what `tine verify-pack` reports.
type VerifyPackResult struct {
	Packs []PackCheck `json:"packs"`
}

// OK reports whether every pack checked is sound.
func (v *VerifyPackResult) OK() bool {
	for _, p := range v.Packs {
		if !p.OK {
			return false
		}
	}
	return true
}

// VerifyPack checks storage packs completely (pack.Store.Verify):
// the index's trailer and structure, the pack's trailer checksum, blocks
// tiling the pack, and every entry's CRC-32C, decompression and re-derived
// oid. A damaged pack is a verdict, not an error; the error is for failing
// to look (or a name that is no pack of this repository).
func VerifyPack(ctx context.Context, r *Repo, opt VerifyPackOptions) (*VerifyPackResult, error) {
	names := make([]string, 0, len(opt.Packs))
	for _, arg := range opt.Packs {
		n := filepath.Base(arg)
		n = strings.TrimSuffix(strings.TrimSuffix(n, ".pack"), ".idx")
		if h, ok := strings.CutPrefix(n, "pack-"); !ok || !isLowerHexN(h, 64) {
			return nil, fmt.Errorf("verify-pack: %q is not a storage pack name (pack-<64 hex>)", arg)
		}
		if !isFile(filepath.Join(r.root, "objects", pack.Dir, n+".pack")) &&
			!isFile(filepath.Join(r.root, "objects", pack.Dir, n+".idx")) {
			return nil, fmt.Errorf("verify-pack: %s: no such pack in this repository", n)
		}
		names = append(names, n)
	}
	if len(opt.Packs) == 0 {
		all, err := storagePackNames(r)
		if err != nil {
			return nil, fmt.Errorf("verify-pack: %w", err)
		}
		names = all
	}
	res := &VerifyPackResult{Packs: []PackCheck{}}
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.Packs = append(res.Packs, verifyOnePack(ctx, r, n))
	}
	return res, nil
}

// storagePackNames lists the packs of objects/pack/ that have an index
// and a pack file, sorted. A pack without an index cannot be verified (fsck
// reports it as damaged); an index without its pack indexes nothing (a gc
// stopped between its two deletions; fsck warns about it).
func storagePackNames(r *Repo) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(r.root, "objects", pack.Dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		n, ok := strings.CutSuffix(e.Name(), ".idx")
		h, isPack := strings.CutPrefix(n, "pack-")
		if ok && isPack && isLowerHexN(h, 64) && isFile(filepath.Join(r.root, "objects", pack.Dir, n+".pack")) {
			names = append(names, n)
		}
	}
	return names, nil
}

// verifyOnePack verifies one pack through the repository's pack store, or,
// when the store could not be opened (some pack is damaged), through a
// scratch copy of that pack alone, so every pack still gets its verdict.
func verifyOnePack(ctx context.Context, r *Repo, name string) PackCheck {
	c := PackCheck{Pack: name}
	var n int
	var err error
	if r.packs != nil {
		n, err = r.packs.Verify(ctx, name)
	} else {
		n, err = verifyCopy(ctx, r, name)
	}
	c.Objects, c.OK = n, err == nil
	if err != nil {
		c.Error = err.Error()
	}
	return c
}

// verifyCopy verifies a pack copied into a scratch directory.
func verifyCopy(ctx context.Context, r *Repo, name string) (int, error) {
	dir := filepath.Join(r.root, "objects", pack.Dir)
	view, err := os.MkdirTemp(dir, gcViewPrefix)
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(view)
	for _, ext := range []string{".pack", ".idx"} {
		if err := copyFile(filepath.Join(dir, name+ext), filepath.Join(view, name+ext)); err != nil {
			return 0, fmt.Errorf("storage pack %s: %w", name+ext, err)
		}
	}
	// Errors name the scratch copy; point them at the real files.
	unview := func(err error) error {
		if err == nil {
			return nil
		}
		return errors.New(strings.ReplaceAll(err.Error(), view, dir))
	}
	s, err := pack.Open(view, r.algo)
	if err != nil {
		return 0, unview(err)
	}
	defer s.Close()
	n, err := s.Verify(ctx, name)
	return n, unview(err)
}
