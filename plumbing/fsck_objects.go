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

// fsckEntry is what fsck keeps of one stored object until every object
// is read and the links can be checked: the decoded object for events,
// attestations and annotations (run graphs and annotation chains read
// events and annotations), a compact objects.RunCheck for a run (its
// event list as numbers, not its body: a loop's runs list mostly the same
// events, and their bodies add up to far more than the repository's
// packs), nothing for blobs, and whether it decoded at all.
type fsckEntry struct {
	obj     *objects.Object
	run     *objects.RunCheck
	corrupt bool
}

// decoded reports whether the entry's copy decoded and has links to check.
func (e *fsckEntry) decoded() bool { return e.obj != nil || e.run != nil }

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
		case s.Temp:
			// Still here after RemoveStale: younger than StaleAfter.
			f.warn(Problem{Code: WarnTempFile, Path: f.rel(s.Path), Message: "temporary file of an interrupted object write"})
		case !s.Temp:
			f.warn(Problem{Code: WarnStray, Path: f.rel(s.Path), Message: "not a loose object name; readers skip it"})
		}
		return nil
	})
	if err != nil {
		return err
	}
	nLoose := len(files)
	entries := make([]fsckEntry, nLoose)
	errs := make([]error, nLoose)
	// Reading is bound by file system latency more than CPU, so the decode
	// pass keeps more reads in flight than there are CPUs.
	parallelFor(nLoose, 4*runtime.GOMAXPROCS(0), func(i int) {
		f.decodeInto(&entries[i], &errs[i], files[i].ID)
	})
	// Packed copies follow the loose ones: every copy in every pack is
	// checked, and an object with several copies is listed once per copy.
	for _, c := range f.verifyPacks() {
		files = append(files, looseFile{ID: c.id, Path: filepath.Join(f.r.root, storagePackRel, c.pack+".pack")})
		entries = append(entries, c.entry)
		errs = append(errs, c.err)
	}
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
		if e := &entries[i]; e.decoded() && f.objs[files[i].ID] == e {
			if e.run != nil {
				errs[i] = e.run.Validate(&f.table, res)
			} else {
				_, errs[i] = objects.Validate(e.obj, res)
			}
		}
	})
	for i, lf := range files {
		if !entries[i].decoded() || errs[i] == nil || f.objs[lf.ID] != &entries[i] {
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

// decodeInto reads the loose copy of id into e and *err.
func (f *fsck) decodeInto(e *fsckEntry, errp *error, id objects.OID) {
	o, err := f.r.loose.Get(f.ctx, id)
	*e, *errp = f.entryOf(o, err), err
}

// entryOf keeps what fsck needs of a read (safe for concurrent use): a
// run's RunCheck, the object of another json type, nothing of a blob, or
// that the copy is corrupt.
func (f *fsck) entryOf(o *objects.Object, err error) fsckEntry {
	switch {
	case err != nil:
		return fsckEntry{corrupt: true}
	case o.Type == objects.TypeRun:
		if rc, err := objects.NewRunCheck(o, &f.table); err == nil {
			return fsckEntry{run: rc}
		}
		return fsckEntry{obj: o} // the table is full: keep the run
	case o.Type != objects.TypeBlob:
		return fsckEntry{obj: o}
	}
	return fsckEntry{}
}

// fsckResolver resolves links against the objects fsck decoded.
type fsckResolver struct{ f *fsck }

// Resolve returns the decoded object; a blob or a run is read again (only
// chain and graph rules resolve, reading annotations and events, so this
// is rare).
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
