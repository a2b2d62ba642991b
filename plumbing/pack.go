package plumbing

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// packFilePerm is the mode of the frames Pack writes: a frame never
// changes once written (its name, in packs/, is its digest).
const packFilePerm = 0o644

// PackStdout is the Output that asks Pack to return the frame rather than
// write a file, for `tine pack --output -`.
const PackStdout = "-"

// PackOptions configures Pack.
type PackOptions struct {
	// Revisions name the pack's roots: oids, prefixes, refs or REF@{n}.
	Revisions []string
	// Output is the file to write the frame to, PackStdout for the
	// caller to write it (PackResult.Frame), or "" for no file.
	Output string
	// Force allows Output to replace an existing file.
	Force bool
	// Store also writes the frame into the repository as
	// packs/<64hex>.pack (SPEC §2.1), named by its digest.
	Store bool
	// Refs makes a bundle (bundle.go): Revisions are ref names or globs
	// (none means every ref outside remotes/), and the frame carries the
	// refs, their targets' closure and their associations.
	Refs bool
	// Progress, when set, is called from the calling goroutine as each
	// step starts (walking, encoding, writing).
	Progress func(GCProgress)
}

// PackResult is what `tine pack` reports.
type PackResult struct {
	// PackID is "sha256:<64 hex>", the digest of the manifest body.
	PackID string `json:"pack_id"`
	// Roots are the resolved root oids, in the order named.
	Roots []string `json:"roots"`
	// Objects counts the packed objects (the link closure of the roots).
	Objects int `json:"objects"`
	// Boundary counts the shallow oids the pack declares: links leaving
	// it to objects this repository only knows as shallow (SPEC §2.7).
	Boundary int `json:"boundary"`
	// Bytes is the frame's size.
	Bytes int `json:"bytes"`
	// Output is the file written, if any ("-" for standard output).
	Output string `json:"output,omitempty"`
	// Stored is the repository path of the packs/ copy, if --store.
	Stored string `json:"stored,omitempty"`
	// Frame is the TINEPACK3 frame itself; never printed as JSON.
	Frame []byte `json:"-"`
	// Refs are the refs a bundle carries (with Refs), sorted by name, and
	// Associations counts the attestations and annotations it carries.
	Refs         []BundleRef `json:"refs,omitempty"`
	Associations int         `json:"associations,omitempty"`
}

// Pack builds the TINEPACK3 frame (SPEC §2.8) that carries the link
// closure of the named objects: every object reachable from them through
// link fields (SPEC §1.5). A link to an object the repository does not hold
// is allowed only when the oid is in its shallow file (SPEC §2.7); the pack
// then declares it in its own shallow list, which is exactly the external
// link set the SPEC requires. So a pack made in a shallow repository is
// itself partial, and a fork's pack can leave out a shared prefix the
// receiver already has by naming the prefix as shallow first.
//
// The frame is written atomically (temporary file, fsync, rename, directory
// fsync) to Output, which must not exist unless Force; with Store it is
// also written to packs/<64hex>.pack. The pack bounds (10000 objects, 256
// MiB manifest) are enforced while walking, before the frame is built.
func Pack(ctx context.Context, r *Repo, opt PackOptions) (*PackResult, error) {
	if len(opt.Revisions) == 0 && !opt.Refs {
		return nil, fmt.Errorf("pack: no objects named: %w", ErrBadInput)
	}
	if opt.Output == "" && !opt.Store {
		return nil, fmt.Errorf("pack: no destination (give an output file or store the pack): %w", ErrBadInput)
	}
	if opt.Output != "" && opt.Output != PackStdout && !opt.Force {
		if _, err := os.Lstat(opt.Output); err == nil {
			return nil, fmt.Errorf("pack: %s: %w", opt.Output, ErrOutputExists)
		}
	}
	step := func(phase string, done int) {
		if opt.Progress != nil {
			opt.Progress(GCProgress{Phase: phase, Done: done, Total: 3})
		}
	}
	res := &PackResult{}
	step("walking the closure", 0)
	objs, boundary, err := packObjects(ctx, r, opt, res)
	if err != nil {
		return nil, fmt.Errorf("pack: %w", err)
	}
	step(fmt.Sprintf("encoding %d objects", len(objs)), 1)
	frame, id, err := objects.WritePack(objs, boundary)
	if err != nil {
		return nil, fmt.Errorf("pack: %w", err)
	}
	res.PackID, res.Objects, res.Boundary, res.Bytes = id, len(objs), len(boundary), len(frame)
	step("writing", 2)
	if opt.Store {
		rel, err := storePackFrame(r, id, frame)
		if err != nil {
			return nil, err
		}
		res.Stored = rel
	}
	switch opt.Output {
	case "":
	case PackStdout:
		res.Output, res.Frame = PackStdout, frame
	default:
		if err := writeOutputFile(opt.Output, frame, opt.Force); err != nil {
			return nil, fmt.Errorf("pack: %w", err)
		}
		res.Output = opt.Output
	}
	return res, nil
}

// packObjects returns the objects and boundary of the frame Pack writes,
// filling res's roots (and a bundle's refs).
func packObjects(ctx context.Context, r *Repo, opt PackOptions, res *PackResult) ([]*objects.Object, []objects.OID, error) {
	res.Roots = []string{}
	if opt.Refs {
		list, err := selectBundleRefs(ctx, r, opt.Revisions)
		if err != nil {
			return nil, nil, err
		}
		if len(list) == 0 {
			return nil, nil, fmt.Errorf("the repository has no refs to bundle: %w", ErrBadInput)
		}
		for _, br := range list {
			res.Roots = append(res.Roots, br.id.String())
			res.Refs = append(res.Refs, BundleRef{Name: br.name, OID: br.id.String()})
		}
		objs, boundary, assoc, err := bundleObjects(ctx, r, list)
		res.Associations = assoc
		return objs, boundary, err
	}
	roots := make([]objects.OID, 0, len(opt.Revisions))
	for _, rev := range opt.Revisions {
		id, err := r.Resolve(ctx, rev)
		if err != nil {
			return nil, nil, err
		}
		roots = append(roots, id)
		res.Roots = append(res.Roots, id.String())
	}
	shallow, err := r.shallowSet()
	if err != nil {
		return nil, nil, err
	}
	return objects.PackClosure(ctx, r.Objects(), roots, func(id objects.OID) bool { return shallow[id] })
}

// storePackFrame writes frame as packs/<hex>.pack in r and returns that
// slash-separated relative path. The name is the digest, so an existing
// file of that name already holds these bytes (fsck verifies it) and is
// left alone.
func storePackFrame(r *Repo, id string, frame []byte) (string, error) {
	hexID, ok := strings.CutPrefix(id, objects.PackIDPrefix)
	if !ok || len(hexID) != 64 {
		return "", fmt.Errorf("pack: unexpected pack id %q", id)
	}
	if _, err := hex.DecodeString(hexID); err != nil {
		return "", fmt.Errorf("pack: unexpected pack id %q", id)
	}
	rel := "packs/" + hexID + ".pack"
	p, err := confinedPath(r.root, rel)
	if err != nil {
		return "", fmt.Errorf("pack: %w", err)
	}
	if st, err := os.Lstat(p); err == nil {
		if !st.Mode().IsRegular() {
			return "", fmt.Errorf("pack: %s is not a regular file: %w", p, ErrNotConfined)
		}
		return rel, nil
	}
	if err := fsutil.WriteFileAtomic(p, frame, packFilePerm); err != nil {
		return "", fmt.Errorf("pack: store %s: %w", rel, err)
	}
	return rel, nil
}

// writeOutputFile writes data to path atomically, refusing to replace an
// existing file unless force. The existence check and the rename are not
// one atomic step; a file that appears in between is replaced, never
// half-written.
func writeOutputFile(path string, data []byte, force bool) error {
	if !force {
		if _, err := os.Lstat(path); err == nil {
			return fmt.Errorf("%s: %w", path, ErrOutputExists)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := fsutil.WriteFileAtomic(filepath.Clean(path), data, packFilePerm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
