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

// load returns a catalog matching the repository, from the file when it is
// fresh, else updated or rebuilt and saved.
func (ix *Index) load(ctx context.Context, force bool) (*data, *Report, error) {
	if err := validateRules(ix.rules); err != nil {
		return nil, nil, err
	}
	st, err := readState(ctx, ix.src, ix.refs)
	if err != nil {
		return nil, nil, err
	}
	var old *data
	reason := "rebuild requested"
	if !force {
		old, reason = ix.readUsable()
		if old != nil {
			diff := compareState(old, st)
			if diff.fresh() {
				return old, &Report{Action: ActionFresh, Counts: old.counts()}, nil
			}
			reason = diff.String()
		}
	}
	b := newBuilder(ctx, ix.src, ix.algo, ix.rules, old)
	d, err := b.build(st)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{Action: ActionRebuilt, Reason: reason, Counts: d.counts(), ObjectsRead: b.reads}
	if old != nil {
		rep.Action = ActionUpdated
	}
	if err := writeFile(ix.Path(), encode(d)); err != nil {
		rep.SaveErr = err
	} else {
		rep.Saved = true
	}
	return d, rep, nil
}

// readUsable returns the decoded file when it can seed an update, or nil
// and the reason it must be rebuilt.
func (ix *Index) readUsable() (*data, string) {
	b, err := readFile(ix.Path())
	if err != nil {
		return nil, err.Error()
	}
	if b == nil {
		return nil, "catalog file is missing"
	}
	d, err := decode(b)
	if err != nil {
		return nil, err.Error()
	}
	if err := ix.matches(d); err != nil {
		return nil, err.Error()
	}
	return d, ""
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
