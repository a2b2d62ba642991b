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
func Unpack(ctx context.Context, r *Repo, opt UnpackOptions) (*UnpackResult, error) {
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
	stage := &stagingStore{Store: r.Objects()}
	pf, err := objects.InstallPack(ctx, frame, stage, func(id objects.OID) bool { return shallow[id] })
	if err != nil {
		return nil, fmt.Errorf("unpack %s: %w", opt.Path, err)
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
	if err := objects.PutAll(ctx, r.Objects(), stage.staged); err != nil {
		return nil, fmt.Errorf("unpack %s: %w", pf.ID, err)
	}
	res := &UnpackResult{PackID: pf.ID, Objects: len(pf.Objects), Installed: []string{}, Boundary: []string{}}
	for _, o := range pf.Objects {
		res.Installed = append(res.Installed, o.ID.String())
	}
	for _, id := range pf.Boundary {
		res.Boundary = append(res.Boundary, id.String())
	}
	return res, nil
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

// stagingStore reads through to the repository's store but keeps what is
// put in memory, in order, for the caller to write later.
type stagingStore struct {
	objects.Store
	staged []*objects.Object
}

// Put stages o.
func (s *stagingStore) Put(_ context.Context, o *objects.Object) error {
	s.staged = append(s.staged, o)
	return nil
}

// PutBatch stages objs in order.
func (s *stagingStore) PutBatch(_ context.Context, objs []*objects.Object) error {
	s.staged = append(s.staged, objs...)
	return nil
}
