package plumbing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/tinehq/tine/objects"
)

// Errors of the transfer verbs (pack, unpack, hash-object --stdin-paths).
var (
	// ErrOutputExists means pack was asked to write a file that exists
	// without --force.
	ErrOutputExists = errors.New("output file exists (use --force to replace it)")
)

// UnpackOptions configures Unpack.
type UnpackOptions struct {
	// Path is the frame file; "-" reads Stdin.
	Path string
	// Stdin is read when Path is "-".
	Stdin io.Reader
	// NoRefs installs a bundle's objects but none of its refs.
	NoRefs bool
	// Progress, when set, is called from the calling goroutine as each
	// step starts (reading, verifying, writing, refs).
	Progress func(GCProgress)
}

// UnpackResult is what `tine unpack` reports.
type UnpackResult struct {
	// PackID is the frame's id, "sha256:<64 hex>".
	PackID string `json:"pack_id"`
	// Objects counts the objects installed (already present ones count:
	// installing is idempotent).
	Objects int `json:"objects"`
	// Installed lists the installed oids in the order written, link
	// targets first.
	Installed []string `json:"installed"`
	// Boundary lists the declared shallow oids the repository does not
	// hold; they are now in its shallow file.
	Boundary []string `json:"boundary"`
	// Bundle says the frame carried a ref list (pack --refs); Refs is what
	// unpack did with each of its refs (bundle.go), in name order.
	Bundle bool         `json:"bundle"`
	Refs   []RefInstall `json:"refs"`
}

// Unpack installs a TINEPACK3 frame into r (SPEC §2.8, op pack.install).
// The frame is read with its bound (256 MiB, pack.oversized, checked before
// reading when the size is known) and fully verified first: frame, manifest,
// every object, the link-closure rule for its shallow list and every link
// resolving to a packed, stored or shallow object. A refused frame is an
// error carrying its reason code, and nothing is written.
//
// Then, in this order, so that a crash at any point leaves fsck clean:
//
//  1. the declared shallow oids the store lacks are added to the shallow
//     file (SPEC §2.7), so links to them satisfy the existence rule;
//  2. the objects are stored in dependency order, link targets first, as
//     one batch through the store's BatchPutter (one round of fsyncs).
//
// A crash between the two leaves only extra shallow entries, which are
// legal. Unpacking a frame twice is harmless: the second install finds
// everything present.
//
// A bundle (a frame carrying a ref list, bundle.go) has its list checked
// with the frame, before anything is written, and not stored; once the
// objects are durable, 3. each of its refs is installed by compare-and-swap
// (installBundleRefs), unless opt.NoRefs.
func Unpack(ctx context.Context, r *Repo, opt UnpackOptions) (*UnpackResult, error) {
	step := func(phase string, done int) {
		if opt.Progress != nil {
			opt.Progress(GCProgress{Phase: phase, Done: done, Total: 4})
		}
	}
	step("reading", 0)
	frame, err := readPackFrame(opt)
	if err != nil {
		return nil, err
	}
	shallow, err := r.shallowSet()
	if err != nil {
		return nil, fmt.Errorf("unpack: %w", err)
	}
	// Verify and order through a staging store: InstallPack's single write
	// is captured, so the shallow file can be updated before any object
	// lands, and a refusal leaves the repository untouched.
	stage := &objects.StagingStore{Store: r.Objects()}
	step("verifying", 1)
	pf, err := objects.InstallPack(ctx, frame, stage, func(id objects.OID) bool { return shallow[id] })
	if err != nil {
		return nil, fmt.Errorf("unpack %s: %w", opt.Path, err)
	}
	list, listID, err := findBundleRefs(r.Algo(), pf.Objects)
	if err != nil {
		return nil, fmt.Errorf("unpack %s: %w", pf.ID, err)
	}
	// The ref list is read, not stored: nothing links to it.
	if !listID.IsZero() {
		stage.Staged = slices.DeleteFunc(stage.Staged, func(o *objects.Object) bool { return o.ID == listID })
	}
	var missing []objects.OID
	for _, id := range pf.Boundary {
		if !shallow[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		err := r.Refs().UpdateShallow(ctx, func(cur []objects.OID) ([]objects.OID, error) {
			return append(slices.Clone(cur), missing...), nil
		})
		if err != nil {
			return nil, fmt.Errorf("unpack %s: record shallow boundary: %w", pf.ID, err)
		}
	}
	step(fmt.Sprintf("writing %d objects", len(stage.Staged)), 2)
	if err := objects.PutAll(ctx, r.Objects(), stage.Staged); err != nil {
		return nil, fmt.Errorf("unpack %s: %w", pf.ID, err)
	}
	res := &UnpackResult{PackID: pf.ID, Objects: len(stage.Staged), Installed: []string{}, Boundary: []string{}, Refs: []RefInstall{}}
	for _, o := range stage.Staged {
		res.Installed = append(res.Installed, o.ID.String())
	}
	if !listID.IsZero() {
		res.Bundle = true
		if opt.NoRefs {
			for _, br := range list {
				res.Refs = append(res.Refs, RefInstall{Name: br.name, New: br.id.String(), Status: RefSkipped, Reason: "--no-refs"})
			}
		} else {
			step("installing refs", 3)
			res.Refs = installBundleRefs(ctx, r, list)
			_, _ = OpenIndex(r).Update(ctx) // derived data: a later read refreshes it
		}
	}
	for _, id := range pf.Boundary {
		res.Boundary = append(res.Boundary, id.String())
	}
	return res, nil
}

// findBundleRefs returns the ref list a frame carries and the oid of its
// annotation (zero when the frame is a plain pack); two lists are refused.
func findBundleRefs(a objects.Algo, objs []*objects.Object) ([]bundleRef, objects.OID, error) {
	var list []bundleRef
	var at objects.OID
	for _, o := range objs {
		l, ok, err := bundleRefs(a, o)
		if err != nil {
			return nil, objects.OID{}, err
		}
		if !ok {
			continue
		}
		if !at.IsZero() {
			return nil, objects.OID{}, fmt.Errorf("%w: two ref lists, %s and %s", ErrBadBundle, at, o.ID)
		}
		list, at = l, o.ID
	}
	return list, at, nil
}

// readPackFrame reads the frame named by opt, refusing one over
// MaxPackBytes before allocating it (SPEC §1.6: the frame bound comes
// first).
func readPackFrame(opt UnpackOptions) ([]byte, error) {
	var rd io.Reader
	switch {
	case opt.Path == "":
		return nil, fmt.Errorf("unpack: no pack file given: %w", ErrBadInput)
	case opt.Path == "-":
		if opt.Stdin == nil {
			return nil, fmt.Errorf("unpack: no standard input: %w", ErrBadInput)
		}
		rd = opt.Stdin
	default:
		f, err := os.Open(opt.Path)
		if err != nil {
			return nil, fmt.Errorf("unpack: %w", err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("unpack: %w", err)
		}
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("unpack: %s is not a regular file: %w", opt.Path, ErrBadInput)
		}
		if st.Size() > objects.MaxPackBytes {
			return nil, fmt.Errorf("unpack %s: %w", opt.Path, objects.Errorf(objects.ReasonPackOversized,
				"pack frame of %d bytes exceeds %d", st.Size(), objects.MaxPackBytes))
		}
		rd = f
	}
	frame, err := io.ReadAll(io.LimitReader(rd, objects.MaxPackBytes+1))
	if err != nil {
		return nil, fmt.Errorf("unpack: read %s: %w", opt.Path, err)
	}
	if len(frame) > objects.MaxPackBytes {
		return nil, fmt.Errorf("unpack %s: %w", opt.Path, objects.Errorf(objects.ReasonPackOversized,
			"pack frame exceeds %d bytes", objects.MaxPackBytes))
	}
	return frame, nil
}
