package plumbing

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// walkFiles calls fn with the slash path (relative to dir) and entry of
// every non-directory under dir, sorted; symlinks are reported, never
// followed. A missing dir is empty.
func walkFiles(dir string, fn func(rel string, d fs.DirEntry) error) error {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		return fn(filepath.ToSlash(rel), d)
	})
	return err
}

// checkRefs checks every file under refs/ (SPEC §2.9): a legal name at its
// normalized path, a file that parses, a stored and intact target, and the
// namespace's type rule. Guards and staging files left by crashed writers
// are warnings: they block updates of their ref but corrupt nothing.
func (f *fsck) checkRefs() error {
	dir := filepath.Join(f.r.root, "refs")
	return walkFiles(dir, func(name string, d fs.DirEntry) error {
		path := "refs/" + name
		base := filepath.Base(name)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			f.problem(Problem{Code: ProblemUnconfined, Path: path, Message: fmt.Sprintf("%s is a symlink, not a regular file: refs are never followed through links (remove it)", path)})
			return nil
		case !d.Type().IsRegular():
			f.problem(Problem{Code: ProblemUnconfined, Path: path, Message: fmt.Sprintf("%s is a special file (%s), not a regular file", path, d.Type())})
			return nil
		case strings.HasSuffix(base, ".lock"):
			// Guards and staging files are reported by staleGuardWarnings,
			// which asks refs whether their writer is still alive.
			return nil
		case strings.HasPrefix(base, ".tmp-"):
			f.warn(Problem{Code: WarnTempFile, Path: path, Message: "temporary file of an interrupted write"})
			return nil
		}
		norm, err := refs.NormalizeName(name)
		if err == nil && norm != name {
			err = fmt.Errorf("ref file %s is not at its normalized name %s", path, norm)
		}
		if err != nil {
			f.problem(Problem{Code: ProblemRefName, Reason: reasonOf(err), Path: path, Message: err.Error()})
			return nil
		}
		f.res.Refs++
		id, err := f.r.refs.Read(f.ctx, name)
		if errors.Is(err, refs.ErrNotFound) {
			f.res.Refs-- // deleted since the walk
			return nil
		}
		if err != nil {
			msg := err.Error()
			if refs.IsDamaged(err) {
				msg += " (tine delete-ref " + name + " removes it)"
			}
			f.problem(Problem{Code: ProblemRefUnreadable, Reason: reasonOf(err), Ref: name, Path: path, Message: msg})
			return nil
		}
		f.checkRefTarget(name, path, id)
		return nil
	})
}

// checkRefTarget applies the existence and type rules to a ref's value.
func (f *fsck) checkRefTarget(name, path string, id objects.OID) {
	p := Problem{Ref: name, Path: path, Object: id.String()}
	e, ok := f.objs[id]
	switch {
	case !ok:
		p.Code, p.Reason = ProblemRefMissing, objects.ReasonLinkMissingObject
		p.Message = fmt.Sprintf("ref %s names %s, which is not stored", name, id)
		f.problem(p)
		return
	case e.corrupt:
		p.Code, p.Message = ProblemRefTarget, fmt.Sprintf("ref %s names %s, which is corrupt", name, id)
		f.problem(p)
		return
	}
	target := e.obj
	if target == nil { // a blob: its body is irrelevant to the type rule
		target = &objects.Object{ID: id, Type: id.Type}
	}
	if err := refs.CheckTarget(name, target); err != nil {
		p.Code, p.Reason, p.Message = ProblemRefTarget, reasonOf(err), err.Error()
		f.problem(p)
	}
}

// checkReflogs parses every reflog under logs/ (SPEC §2.6). A torn final
// row is a crash artifact and only a warning.
func (f *fsck) checkReflogs() error {
	dir := filepath.Join(f.r.root, "logs")
	return walkFiles(dir, func(name string, d fs.DirEntry) error {
		path := "logs/" + name
		if strings.HasPrefix(filepath.Base(name), ".tmp-") {
			f.warn(Problem{Code: WarnTempFile, Path: path, Message: "temporary file of an interrupted write"})
			return nil
		}
		norm, err := refs.NormalizeName(name)
		if err == nil && norm != name {
			err = fmt.Errorf("reflog %s is not at a normalized ref name", path)
		}
		if err != nil {
			f.problem(Problem{Code: ProblemReflog, Reason: reasonOf(err), Path: path, Message: err.Error()})
			return nil
		}
		rr, err := f.r.refs.ReadReflog(name)
		if err != nil {
			f.problem(Problem{Code: ProblemReflog, Reason: reasonOf(err), Ref: name, Path: path, Message: err.Error()})
			return nil
		}
		if rr.TornBytes > 0 {
			f.warn(Problem{Code: WarnTornReflog, Ref: name, Path: path,
				Message: fmt.Sprintf("last row (%d bytes) was cut by a crash; it is skipped and cut off by the next update", rr.TornBytes)})
		}
		return nil
	})
}

// checkPacks checks the names of pack files (SPEC §2.1: packs/<64hex>.pack).
func (f *fsck) checkPacks() error {
	dir := filepath.Join(f.r.root, "packs")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		path := "packs/" + e.Name()
		hexName, ok := strings.CutSuffix(e.Name(), ".pack")
		switch {
		case strings.HasPrefix(e.Name(), ".tmp-"):
			f.warn(Problem{Code: WarnTempFile, Path: path, Message: "temporary file of an interrupted write"})
		case !ok || !isLowerHexN(hexName, 64):
			f.problem(Problem{Code: ProblemPackName, Path: path, Message: "pack files are named <64 lowercase hex>.pack"})
		case !e.Type().IsRegular():
			f.problem(Problem{Code: ProblemUnconfined, Path: path, Message: fmt.Sprintf("%s is a %s, not a regular file", path, e.Type())})
		}
	}
	return nil
}
