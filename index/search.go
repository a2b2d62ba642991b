package index

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/tinehq/tine/objects"
)

// SearchIndex is a loaded search index: the inverted index from terms to
// the events of the runs refs name. Every oid it returns is a candidate:
// callers read the event (which verifies it) and check the text before
// showing it.
type SearchIndex struct{ s *searchData }

// SearchReport says what bringing the search index up to date did.
type SearchReport struct {
	// Action is ActionFresh, ActionUpdated or ActionRebuilt.
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`
	// Events and Terms are the sizes of the resulting index; Bytes its
	// file size.
	Events int `json:"events"`
	Terms  int `json:"terms"`
	Bytes  int `json:"bytes"`
	// EventsRead counts the events read and tokenized for the update.
	EventsRead int  `json:"events_read"`
	Saved      bool `json:"saved"`
	// SaveErr is why writing the file failed (the index is still usable).
	SaveErr error `json:"-"`
}

// SearchPath returns the search index file's absolute path.
func (ix *Index) SearchPath() string {
	return filepath.Join(ix.root, filepath.FromSlash(Dir), SearchFile)
}

// Search returns the search index of cat's events (cat must come from
// ix.Catalog), updating the file first: the events cat holds that the file
// lacks are read and tokenized, events no ref'd run lists any more are
// dropped, and the whole file is rewritten atomically. A missing, corrupt
// or mismatched file, or rebuild, builds it from scratch.
func (ix *Index) Search(ctx context.Context, cat *Catalog, rebuild bool) (*SearchIndex, *SearchReport, error) {
	want := make([]objects.OID, 0, len(cat.d.events))
	for _, e := range cat.d.events {
		if !e.Missing {
			want = append(want, e.ID)
		}
	}
	var old *searchData
	reason := "rebuild requested"
	if !rebuild {
		old, reason = ix.readSearch()
		if old != nil && slices.Equal(old.events, want) {
			return &SearchIndex{old}, &SearchReport{Action: ActionFresh, Events: len(old.events), Terms: len(old.terms), Bytes: len(old.raw) + checksumSize}, nil
		}
	}
	terms, read, err := ix.searchTerms(ctx, old, want)
	if err != nil {
		return nil, nil, err
	}
	b := encodeSearch(ix.algo, want, terms)
	s, err := decodeSearch(b)
	if err != nil {
		return nil, nil, fmt.Errorf("search index: %w", err) // unreachable: we just encoded it
	}
	rep := &SearchReport{Action: ActionRebuilt, Reason: reason, Events: len(want), Terms: len(s.terms), Bytes: len(b), EventsRead: read}
	if old != nil {
		rep.Action, rep.Reason = ActionUpdated, fmt.Sprintf("%d events to index, %d indexed", len(want), len(old.events))
	}
	if err := writeFile(ix.SearchPath(), b); err != nil {
		rep.SaveErr = err
	} else {
		rep.Saved = true
	}
	return &SearchIndex{s}, rep, nil
}

// readSearch returns the decoded file when it can seed an update, or nil
// and why it must be rebuilt.
func (ix *Index) readSearch() (*searchData, string) {
	b, err := readFile(ix.SearchPath())
	switch {
	case err != nil:
		return nil, err.Error()
	case b == nil:
		return nil, "search index is missing"
	}
	s, err := decodeSearch(b)
	switch {
	case err != nil:
		return nil, err.Error()
	case s.algo != ix.algo:
		return nil, fmt.Sprintf("search index built for %s objects", s.algo)
	case s.prefix != MaxBlobPrefix:
		return nil, fmt.Sprintf("search index built with a %d-byte blob prefix", s.prefix)
	}
	return s, ""
}

// searchTerms returns the postings of want (sorted): old's postings of the
// events it already holds, remapped to their new positions, plus the
// terms of every other event, read now.
func (ix *Index) searchTerms(ctx context.Context, old *searchData, want []objects.OID) (map[string][]posting, int, error) {
	pos := make(map[objects.OID]int, len(want))
	for i, id := range want {
		pos[id] = i
	}
	terms := map[string][]posting{}
	have := map[objects.OID]bool{}
	if old != nil {
		remap := make([]int, len(old.events))
		for i, id := range old.events {
			p, ok := pos[id]
			remap[i] = -1
			if ok {
				remap[i] = p
				have[id] = true
			}
		}
		for i := range old.terms {
			ps, err := old.postings(i)
			if err != nil {
				// A damaged posting block: start over rather than trust it.
				return ix.searchTerms(ctx, nil, want)
			}
			for _, p := range ps {
				if n := remap[p.event]; n >= 0 {
					terms[old.terms[i].name] = append(terms[old.terms[i].name], posting{n, p.fields})
				}
			}
		}
	}
	read := 0
	for i, id := range want {
		if have[id] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		o, err := ix.src.Get(ctx, id)
		if errors.Is(err, objects.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, 0, fmt.Errorf("search index: %w", err)
		}
		read++
		t, err := ReadEventText(ctx, ix.src, o)
		if err != nil {
			return nil, 0, fmt.Errorf("search index: %w", err)
		}
		for term, f := range eventTerms(t) {
			terms[term] = append(terms[term], posting{i, f})
		}
	}
	return terms, read, nil
}

// Lookup returns the events holding every term in a field of mask,
// sorted by oid: candidates to verify, not results.
func (si *SearchIndex) Lookup(terms []string, mask byte) ([]objects.OID, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	var cur []int
	for k, term := range terms {
		i := si.s.find(term)
		if i < 0 {
			return nil, nil
		}
		ps, err := si.s.postings(i)
		if err != nil {
			return nil, fmt.Errorf("search index: %w", err)
		}
		var next []int
		for _, p := range ps {
			if p.fields&mask == 0 {
				continue
			}
			if k == 0 {
				next = append(next, p.event)
			} else if _, ok := slices.BinarySearch(cur, p.event); ok {
				next = append(next, p.event)
			}
		}
		cur = next
		if len(cur) == 0 {
			return nil, nil
		}
	}
	out := make([]objects.OID, len(cur))
	for i, p := range cur {
		out[i] = si.s.events[p]
	}
	return out, nil
}

// Size returns the number of indexed events and terms.
func (si *SearchIndex) Size() (events, terms int) { return len(si.s.events), len(si.s.terms) }
