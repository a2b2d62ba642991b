package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/tinehq/tine/objects"
)

// SearchIndex is a loaded search index: the inverted index from terms to
// the events of the runs refs name, in two files (see Search). Every oid
// it returns is a candidate: callers read the event (which verifies it)
// and check the text before showing it.
type SearchIndex struct{ parts []*searchData }

// SearchReport says what bringing the search index up to date did.
type SearchReport struct {
	// Action is ActionFresh, ActionUpdated or ActionRebuilt.
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`
	// Events counts the indexed events, RecentEvents those in the recent
	// file; Terms counts the main file's terms; Bytes is both files' size.
	Events       int `json:"events"`
	RecentEvents int `json:"recent_events"`
	Terms        int `json:"terms"`
	Bytes        int `json:"bytes"`
	// EventsRead counts the events read and tokenized for the update.
	EventsRead int `json:"events_read"`
	// Merged says the recent file was folded into the main one.
	Merged bool `json:"merged,omitempty"`
	Saved  bool `json:"saved"`
	// SaveErr is why writing a file failed (the index is still usable).
	SaveErr error `json:"-"`
}

// searchRecentMin is the recent file's size, in events, below which it
// is never merged (a variable so tests can reach the merge cheaply).
var searchRecentMin = 1024

// SearchRecentFile is the search index's second file in Dir: the events
// indexed since the main file was last written.
const SearchRecentFile = "search-recent"

// SearchPath returns the main search index file's absolute path.
func (ix *Index) SearchPath() string {
	return filepath.Join(ix.root, filepath.FromSlash(Dir), SearchFile)
}

// searchRecentPath returns the recent file's absolute path.
func (ix *Index) searchRecentPath() string {
	return filepath.Join(ix.root, filepath.FromSlash(Dir), SearchRecentFile)
}

// Search returns the search index of cat's events (cat must come from
// ix.Catalog), updating it first. The index is two files of one format:
// the main file and a small recent file. Events cat holds that neither
// file has are read, tokenized and written, with the recent file's, to a
// new recent file, so an append costs what the recent file holds, not the
// whole index. When the recent file would exceed an eighth of the main
// one (at least 1,024 events), or a quarter of the indexed events belong
// to runs no ref names any more, both are merged into a new main file.
// Events no ref'd run lists are otherwise left in place: they are never
// shown, since hits come from the catalog's events. A missing, corrupt or
// mismatched main file, or rebuild, builds everything from scratch; a bad
// recent file is simply dropped and its events re-read.
func (ix *Index) Search(ctx context.Context, cat *Catalog, rebuild bool) (*SearchIndex, *SearchReport, error) {
	want := make([]objects.OID, 0, len(cat.d.events))
	for _, e := range cat.d.events {
		if !e.Missing {
			want = append(want, e.ID)
		}
	}
	var main, recent *searchData
	reason := "rebuild requested"
	if !rebuild {
		main, reason = ix.readSearch(ix.SearchPath(), "search index")
	}
	if main != nil {
		recent, _ = ix.readSearch(ix.searchRecentPath(), "recent search index")
	}
	wanted := make(map[objects.OID]bool, len(want))
	for _, id := range want {
		wanted[id] = true
	}
	indexed := map[objects.OID]bool{}
	for _, part := range []*searchData{main, recent} {
		if part != nil {
			for _, id := range part.events {
				indexed[id] = true
			}
		}
	}
	var fresh []objects.OID
	for _, id := range want {
		if !indexed[id] {
			fresh = append(fresh, id)
		}
	}
	gone := 0
	for id := range indexed {
		if !wanted[id] {
			gone++
		}
	}
	if main != nil && len(fresh) == 0 && gone <= len(want)/4 {
		si := &SearchIndex{parts: []*searchData{main}}
		rep := &SearchReport{Action: ActionFresh, Events: len(indexed), Terms: len(main.terms), Bytes: len(main.raw) + checksumSize}
		if recent != nil {
			si.parts = append(si.parts, recent)
			rep.RecentEvents, rep.Bytes = len(recent.events), rep.Bytes+len(recent.raw)+checksumSize
		}
		return si, rep, nil
	}
	nRecent := len(fresh)
	if recent != nil {
		nRecent += len(recent.events)
	}
	if main == nil || gone > len(want)/4 || nRecent > max(searchRecentMin, len(main.events)/8) {
		return ix.searchMerge(ctx, want, main, recent, reason)
	}
	// Only the recent file is rewritten: its events still listed, plus the
	// fresh ones.
	var keep []objects.OID
	if recent != nil {
		for _, id := range recent.events {
			if wanted[id] {
				keep = append(keep, id)
			}
		}
	}
	list := append(keep, fresh...)
	sortOIDs(list)
	terms, read, err := ix.searchTerms(ctx, []*searchData{recent}, list)
	if err != nil {
		return nil, nil, err
	}
	b := encodeSearch(ix.algo, list, terms)
	rs, err := decodeSearch(b)
	if err != nil {
		return nil, nil, fmt.Errorf("search index: %w", err) // unreachable: just encoded
	}
	rep := &SearchReport{Action: ActionUpdated, Reason: fmt.Sprintf("%d events to index", len(fresh)),
		Events: len(indexed) + len(fresh), RecentEvents: len(list), Terms: len(main.terms),
		Bytes: len(main.raw) + checksumSize + len(b), EventsRead: read}
	if err := writeFile(ix.searchRecentPath(), b); err != nil {
		rep.SaveErr = err
	} else {
		rep.Saved = true
	}
	return &SearchIndex{parts: []*searchData{main, rs}}, rep, nil
}

// searchMerge writes a new main file for want, reusing the postings of
// main and recent, and removes the recent file.
func (ix *Index) searchMerge(ctx context.Context, want []objects.OID, main, recent *searchData, reason string) (*SearchIndex, *SearchReport, error) {
	terms, read, err := ix.searchTerms(ctx, []*searchData{main, recent}, want)
	if err != nil {
		return nil, nil, err
	}
	b := encodeSearch(ix.algo, want, terms)
	s, err := decodeSearch(b)
	if err != nil {
		return nil, nil, fmt.Errorf("search index: %w", err) // unreachable: just encoded
	}
	rep := &SearchReport{Action: ActionRebuilt, Reason: reason, Events: len(want), Terms: len(s.terms), Bytes: len(b), EventsRead: read}
	if main != nil {
		rep.Action, rep.Reason, rep.Merged = ActionUpdated, "merged the recent events into the main file", true
	}
	if err := writeFile(ix.SearchPath(), b); err != nil {
		rep.SaveErr = err
		return &SearchIndex{parts: []*searchData{s}}, rep, nil
	}
	rep.Saved = true
	// The main file now holds every event; a recent file left behind by a
	// failed removal only repeats some of them, which lookups tolerate.
	if err := os.Remove(ix.searchRecentPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		rep.SaveErr = fmt.Errorf("search index: %w", err)
	}
	return &SearchIndex{parts: []*searchData{s}}, rep, nil
}

// readSearch returns the decoded file at path when it can be used, or nil
// and why not.
func (ix *Index) readSearch(path, what string) (*searchData, string) {
	b, err := readFile(path)
	switch {
	case err != nil:
		return nil, err.Error()
	case b == nil:
		return nil, what + " is missing"
	}
	s, err := decodeSearch(b)
	switch {
	case err != nil:
		return nil, err.Error()
	case s.algo != ix.algo:
		return nil, fmt.Sprintf("%s built for %s objects", what, s.algo)
	case s.prefix != MaxBlobPrefix:
		return nil, fmt.Sprintf("%s built with a %d-byte blob prefix", what, s.prefix)
	}
	return s, ""
}

// searchTerms returns the postings of want (sorted): the postings olds
// already hold for those events (the first file holding an event wins),
// remapped to their new positions, plus the terms of every other event,
// read now. A damaged posting block makes it read every event instead.
func (ix *Index) searchTerms(ctx context.Context, olds []*searchData, want []objects.OID) (map[string][]posting, int, error) {
	pos := make(map[objects.OID]int, len(want))
	for i, id := range want {
		pos[id] = i
	}
	terms := map[string][]posting{}
	have := map[objects.OID]bool{}
	for _, old := range olds {
		if old == nil {
			continue
		}
		remap := make([]int, len(old.events))
		for i, id := range old.events {
			remap[i] = -1
			if p, ok := pos[id]; ok && !have[id] {
				remap[i] = p
				have[id] = true
			}
		}
		for i := range old.terms {
			ps, err := old.postings(i)
			if err != nil {
				return ix.searchTerms(ctx, nil, want)
			}
			name := ""
			for _, p := range ps {
				if n := remap[p.event]; n >= 0 {
					if name == "" {
						name = old.term(i)
					}
					terms[name] = append(terms[name], posting{n, p.fields})
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
// sorted by oid and distinct: candidates to verify, not results.
func (si *SearchIndex) Lookup(terms []string, mask byte) ([]objects.OID, error) {
	var out []objects.OID
	for _, part := range si.parts {
		ids, err := part.lookup(terms, mask)
		if err != nil {
			return nil, err
		}
		out = append(out, ids...)
	}
	sortOIDs(out)
	return slices.Compact(out), nil
}

// lookup is Lookup within one file.
func (s *searchData) lookup(terms []string, mask byte) ([]objects.OID, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	var cur []int
	for k, term := range terms {
		i := s.find(term)
		if i < 0 {
			return nil, nil
		}
		ps, err := s.postings(i)
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
		out[i] = s.events[p]
	}
	return out, nil
}
