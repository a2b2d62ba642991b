package plumbing

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tinehq/tine/objects"
)

// errCorrupt marks a link or ref target whose object is stored but corrupt
// (reported once, on the object itself).
var errCorrupt = errors.New("object is corrupt")

// fsckEntry is what fsck keeps of one stored object: the decoded object for
// json types (run graphs and annotation chains read them), nothing for
// blobs, and whether it decoded at all.
type fsckEntry struct {
	obj     *objects.Object
	corrupt bool
}

// checkShallow parses the shallow file; an invalid one is a problem and
// counts as empty, so links to its oids are reported missing too.
func (f *fsck) checkShallow() error {
	f.shallow = map[objects.OID]bool{}
	ids, err := f.r.readShallow()
	if err != nil {
		f.problem(Problem{Code: ProblemShallow, Reason: reasonOf(err), Path: "shallow", Message: err.Error()})
		return nil
	}
	for _, id := range ids {
		if id.Algo != f.r.algo {
			f.problem(Problem{Code: ProblemShallow, Reason: objects.ReasonOidMalformed, Path: "shallow", Object: id.String(),
				Message: fmt.Sprintf("shallow oid %s does not use this repository's %s", id, f.r.algo)})
			continue
		}
		f.shallow[id] = true
	}
	f.res.Shallow = len(ids)
	return nil
}

// checkObjects decodes every loose and packed object, then validates each against the
// decoded set. Both passes run on every CPU; results are reported in SPEC
// enumeration order so the output is deterministic.
func (f *fsck) checkObjects() error {
	var files []looseFile
	err := walkLoose(f.ctx, f.r, false, func(lf looseFile) error {
		files = append(files, lf)
		return nil
	}, func(s strayFile) error {
		switch {
		case s.Err != nil:
			f.problem(Problem{Code: ProblemUnconfined, Path: f.rel(s.Path), Message: s.Err.Error()})
		case s.Temp && !f.opt.RemoveStale:
			f.warn(Problem{Code: WarnTempFile, Path: f.rel(s.Path), Message: "temporary file of an interrupted object write"})
		case !s.Temp:
			f.warn(Problem{Code: WarnStray, Path: f.rel(s.Path), Message: "not a loose object name; readers skip it"})
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Packed objects follow the loose ones; an object with both copies is
	// listed twice and both copies are checked.
	nLoose := len(files)
	if f.r.packs != nil {
		err := f.r.packs.List(f.ctx, func(id objects.OID) error {
			files = append(files, looseFile{ID: id, Path: filepath.Join(f.r.root, storagePackRel)})
			return nil
		})
		if err != nil {
			return err
		}
	}
	entries := make([]fsckEntry, len(files))
	errs := make([]error, len(files))
	// Reading is bound by file system latency more than CPU, so the decode
	// pass keeps more reads in flight than there are CPUs.
	parallelFor(nLoose, 4*runtime.GOMAXPROCS(0), func(i int) {
		f.decodeInto(&entries[i], &errs[i], files[i].ID, false)
	})
	// Packed objects are read in enumeration order, contiguous runs per
	// worker: gc writes packs in that order, and a pack keeps its last
	// decoded block, so most reads need no decompression.
	parallelChunks(len(files)-nLoose, runtime.GOMAXPROCS(0), func(i int) {
		f.decodeInto(&entries[nLoose+i], &errs[nLoose+i], files[nLoose+i].ID, true)
	})
	f.objs = make(map[objects.OID]*fsckEntry, len(files))
	for i, lf := range files {
		prev, dup := f.objs[lf.ID]
		if !dup || (prev.corrupt && !entries[i].corrupt) {
			f.objs[lf.ID] = &entries[i]
		}
		if !dup {
			f.res.Objects++
			f.res.ByType[lf.ID.Type]++
		}
		if errs[i] != nil {
			f.problem(Problem{Code: ProblemObjectCorrupt, Reason: reasonOf(errs[i]), Object: lf.ID.String(), Path: f.rel(lf.Path), Message: errs[i].Error()})
		}
	}
	if err := f.ctx.Err(); err != nil {
		return err
	}
	res := &fsckResolver{f: f}
	parallelFor(len(files), runtime.GOMAXPROCS(0), func(i int) {
		// Both copies of an object decode to the same value: validate once.
		if e := entries[i]; e.obj != nil && f.objs[files[i].ID] == &entries[i] {
			_, errs[i] = objects.Validate(e.obj, res)
		}
	})
	for i, lf := range files {
		if entries[i].obj == nil || errs[i] == nil || f.objs[lf.ID] != &entries[i] {
			continue
		}
		code := ProblemObjectInvalid
		if objects.HasReason(errs[i], objects.ReasonLinkMissingObject) {
			code = ProblemMissingLink
		}
		f.problem(Problem{Code: code, Reason: reasonOf(errs[i]), Object: lf.ID.String(), Path: f.rel(lf.Path), Message: errs[i].Error()})
	}
	return f.ctx.Err()
}

// decodeInto reads one copy of id, loose or packed, into e and *err.
func (f *fsck) decodeInto(e *fsckEntry, errp *error, id objects.OID, packed bool) {
	var o *objects.Object
	var err error
	if packed {
		o, err = f.r.packs.Get(f.ctx, id)
	} else {
		o, err = f.r.loose.Get(f.ctx, id)
	}
	switch {
	case err != nil:
		e.corrupt, *errp = true, err
	case o.Type != objects.TypeBlob:
		e.obj = o
	}
}

// parallelChunks calls fn(i) for i in [0, n) on the given number of
// goroutines, each taking a contiguous run of indexes.
func parallelChunks(n, workers int, fn func(i int)) {
	if workers > n {
		workers = n
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// fsckResolver resolves links against the objects fsck decoded.
type fsckResolver struct{ f *fsck }

// Resolve returns the decoded object; a blob is read again (only chain and
// graph rules resolve, and they never need blob bodies, so this is rare).
func (s *fsckResolver) Resolve(id objects.OID) (*objects.Object, error) {
	e, ok := s.f.objs[id]
	switch {
	case !ok:
		return nil, nil
	case e.corrupt:
		return nil, fmt.Errorf("%s: %w", id, errCorrupt)
	case e.obj != nil:
		return e.obj, nil
	}
	return s.f.r.objs.Get(s.f.ctx, id)
}

// Present reports existence, counting corrupt objects as present: the
// corruption is reported on the object itself (objects.PresenceChecker).
func (s *fsckResolver) Present(id objects.OID) (bool, error) {
	_, ok := s.f.objs[id]
	return ok, nil
}

// Shallow reports a shallow-boundary oid.
func (s *fsckResolver) Shallow(id objects.OID) bool { return s.f.shallow[id] }

// parallelFor calls fn(i) for i in [0, n) on the given number of
// goroutines.
func parallelFor(n, workers int, fn func(i int)) {
	if workers > n {
		workers = n
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}
