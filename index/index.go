package index

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/tinehq/tine/objects"
)

// Options configures an Index.
type Options struct {
	// Rules are the evidence rules; nil means DefaultRules. Every writer of
	// a repository must use the same rules, or each load rebuilds.
	Rules []EvidenceRule
}

// Index is the handle of one repository's catalog file. It holds no open
// files and no mutable state, so it is safe for concurrent use; concurrent
// processes are safe too (see the package doc).
type Index struct {
	root  string
	algo  objects.Algo
	src   Source
	refs  RefLister
	rules []EvidenceRule
}

// New returns the catalog handle of the repository whose directory is root
// (the .tine directory), reading objects from src and refs from rl.
func New(root string, algo objects.Algo, src Source, rl RefLister, opt Options) *Index {
	rules := opt.Rules
	if rules == nil {
		rules = DefaultRules
	}
	return &Index{root: root, algo: algo, src: src, refs: rl, rules: slices.Clone(rules)}
}

// Path returns the catalog file's absolute path.
func (ix *Index) Path() string {
	return filepath.Join(ix.root, filepath.FromSlash(Dir), File)
}

// Actions a Report names.
const (
	// ActionFresh: the file matched the repository; nothing was written.
	ActionFresh = "fresh"
	// ActionUpdated: the file was sound but stale; only new runs,
	// attestations and annotations were read.
	ActionUpdated = "updated"
	// ActionRebuilt: the catalog was built from scratch (missing, corrupt,
	// mismatched, or a rebuild was asked for).
	ActionRebuilt = "rebuilt"
)

// Report says what bringing the catalog up to date did.
type Report struct {
	Action string `json:"action"`
	// Reason says why the catalog was updated or rebuilt.
	Reason string `json:"reason,omitempty"`
	// Counts describes the resulting catalog.
	Counts
	// ObjectsRead is how many objects were read to update it.
	ObjectsRead int `json:"objects_read"`
	// Saved reports whether the file was written.
	Saved bool `json:"saved"`
	// SaveErr is why writing failed (Catalog only; Update returns it).
	SaveErr error `json:"-"`
}

// Counts are the sizes of a catalog's tables.
type Counts struct {
	Refs         int `json:"refs"`
	Runs         int `json:"runs"`
	Attestations int `json:"attestations"`
	Evaluations  int `json:"evaluations"`
	Annotations  int `json:"annotations"`
	EvidenceRows int `json:"evidence_rows"`
	// Events counts the event summaries (the events of the ref'd runs).
	Events int `json:"events"`
}

// Catalog returns an up-to-date catalog for queries, updating or
// rebuilding the file when needed. Failing to write the file does not fail
// the query (the catalog is derived): it is reported in Report.SaveErr.
func (ix *Index) Catalog(ctx context.Context) (*Catalog, *Report, error) {
	d, rep, err := ix.load(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	return newCatalog(d), rep, nil
}

// Update brings the catalog file up to date with the refs and objects.
// Porcelain calls it after every write; it reads only what changed.
func (ix *Index) Update(ctx context.Context) (*Report, error) {
	_, rep, err := ix.load(ctx, false)
	if err != nil {
		return nil, err
	}
	return rep, rep.SaveErr
}

// Rebuild builds the catalog from scratch, ignoring the current file.
func (ix *Index) Rebuild(ctx context.Context) (*Report, error) {
	_, rep, err := ix.load(ctx, true)
	if err != nil {
		return nil, err
	}
	return rep, rep.SaveErr
}

// load returns a catalog matching the repository, from the files when
// they are fresh, else updated (a layer with what changed, or a new base
// when the layers have grown: compaction) or rebuilt, and saved. Writers
// hold the lock; readers of a fresh catalog take none.
func (ix *Index) load(ctx context.Context, force bool) (*data, *Report, error) {
	if err := validateRules(ix.rules); err != nil {
		return nil, nil, err
	}
	st, err := readState(ctx, ix.src, ix.refs)
	if err != nil {
		return nil, nil, err
	}
	var cur *stack
	reason := "rebuild requested"
	if !force {
		if cur, reason = ix.usable(st); cur != nil && reason == "" {
			return cur.d, &Report{Action: ActionFresh, Counts: cur.d.counts()}, nil
		}
	}
	fl, lockErr := ix.lock()
	if lockErr == nil {
		defer fl.Unlock()
		if !force && (cur == nil || !ix.unchanged(cur)) {
			// Another writer may have saved while this one waited: start
			// again from what is there now.
			if st, err = readState(ctx, ix.src, ix.refs); err != nil {
				return nil, nil, err
			}
			if cur, reason = ix.usable(st); cur != nil && reason == "" {
				return cur.d, &Report{Action: ActionFresh, Counts: cur.d.counts()}, nil
			}
		}
	}
	var old *data
	if cur != nil {
		old = cur.d
	}
	b := newBuilder(ctx, ix.src, ix.algo, ix.rules, old)
	rep := &Report{Action: ActionRebuilt, Reason: reason}
	var d *data
	var layer []byte
	if cur == nil {
		if d, err = b.build(st); err != nil {
			return nil, nil, err
		}
	} else {
		l, err := b.delta(st)
		if err != nil {
			return nil, nil, err
		}
		if d, err = apply(cur.d, []*delta{l}); err != nil {
			return nil, nil, err
		}
		rep.Action, layer = ActionUpdated, encodeLayer(l, ix.algo)
	}
	rep.Counts, rep.ObjectsRead = d.counts(), b.reads
	switch {
	case lockErr != nil:
		rep.SaveErr = lockErr
	case cur != nil && !cur.compact(len(layer)):
		rep.SaveErr = ix.saveLayer(cur, layer)
	default:
		rep.SaveErr = ix.saveBase(d)
	}
	rep.Saved = rep.SaveErr == nil
	return d, rep, nil
}

// usable returns the loaded catalog and how it differs from st ("" when
// fresh), or nil and why it must be rebuilt.
func (ix *Index) usable(st *state) (*stack, string) {
	s, err := ix.readStack()
	switch {
	case err != nil:
		return nil, err.Error()
	case s == nil:
		return nil, "catalog file is missing"
	}
	if diff := compareState(s.d, st); !diff.fresh() {
		return s, diff.String()
	}
	return s, ""
}

// matches checks that d was built for this repository's hash and rules.
func (ix *Index) matches(d *data) error {
	if d.algo != ix.algo {
		return fmt.Errorf("%w: built for %s objects, the repository uses %s", ErrMismatch, d.algo, ix.algo)
	}
	if !slices.Equal(d.rules, ix.rules) {
		return fmt.Errorf("%w: built with other evidence rules", ErrMismatch)
	}
	return nil
}

// counts returns the table sizes of d.
func (d *data) counts() Counts {
	c := Counts{Refs: len(d.refs), Runs: len(d.runs), Attestations: len(d.atts), Annotations: len(d.anns), Events: len(d.events)}
	for _, r := range d.runs {
		c.EvidenceRows += len(r.Keyed)
	}
	for i := range d.atts {
		if d.atts[i].Kind == KindEvaluation {
			c.Evaluations++
		}
	}
	return c
}

// validateRules refuses rules the catalog could not record.
func validateRules(rules []EvidenceRule) error {
	for _, r := range rules {
		if !storable(r.Table) || !storable(r.Path) || len(r.Kind) > MaxStringBytes {
			return fmt.Errorf("catalog: evidence rule %+v: table and path must be 1..%d bytes", r, MaxStringBytes)
		}
	}
	return nil
}
