package compare

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// ErrBadQuery means a search query or option was refused.
var ErrBadQuery = errors.New("bad search query")

// Search scopes (--in).
const (
	InInput  = "input"
	InOutput = "output"
	InAll    = "all"
)

// DefaultSearchLimit is how many verified hits a search returns when no
// limit is given.
const DefaultSearchLimit = 50

// maxHitRefs bounds the refs listed per hit (a loop's shared init event
// is in every branch).
const maxHitRefs = 20

// maxSnippetRunes bounds a hit's snippet.
const maxSnippetRunes = 160

// MaxQueryTerms bounds the distinct words of a query (the MCP tools pass
// queries they did not write).
const MaxQueryTerms = 32

// SearchOptions configures Search.
type SearchOptions struct {
	// Query is free text; its terms (index.Tokenize) must all occur.
	Query string
	// In is InInput, InOutput or InAll ("" is InAll).
	In string
	// Kind keeps events whose kind is exactly this; "" keeps all.
	Kind string
	// RefGlob keeps events of runs a ref matching it names (MatchRef);
	// "" keeps all.
	RefGlob string
	// Limit bounds the hits; 0 means DefaultSearchLimit.
	Limit int
}

// SearchHit is one event that matched, verified against its objects.
type SearchHit struct {
	Event string   `json:"event"`
	Kind  string   `json:"kind"`
	Label string   `json:"label"`
	Time  *float64 `json:"time,omitempty"`
	// Refs are refs of the runs holding the event (at most 20, sorted);
	// RefCount counts them all.
	Refs     []string `json:"refs"`
	RefCount int      `json:"ref_count"`
	// Fields are the fields (input, output, meta) a term occurs in.
	Fields []string `json:"fields"`
	// Snippet is the first line holding the first term, cut to 160
	// characters; recorded text, so untrusted.
	Snippet string `json:"snippet"`
}

// SearchResult is what `tine search` reports.
type SearchResult struct {
	Query string      `json:"query"`
	Terms []string    `json:"terms"`
	In    string      `json:"in"`
	Hits  []SearchHit `json:"hits"`
	// Candidates counts the events the index proposed after the kind and
	// ref filters; Truncated says the limit stopped verification early.
	Candidates int                `json:"candidates"`
	Truncated  bool               `json:"truncated"`
	Index      index.SearchReport `json:"index"`
}

// Search finds events by the text of their payload and blobs through the
// search index kept beside the catalog (updated first, reading only the
// events it lacks). Candidates are newest first (event time, then oid);
// each is read back through the store (which re-verifies the event and
// its blobs) and its text re-checked before it becomes a hit, so a stale
// or damaged index can never show an event that does not match.
func Search(ctx context.Context, r *plumbing.Repo, opt SearchOptions) (*SearchResult, error) {
	mask, in, err := searchMask(opt.In)
	if err != nil {
		return nil, err
	}
	if opt.RefGlob != "" {
		if _, err := path.Match(opt.RefGlob, ""); err != nil {
			return nil, fmt.Errorf("%w: --ref %s is not a glob", ErrBadQuery, quoteCut(opt.RefGlob))
		}
	}
	terms := index.Terms(opt.Query)
	if len(terms) == 0 {
		return nil, fmt.Errorf("%w %s: no term to search for (terms are runs of %d to %d letters or digits)", ErrBadQuery, quoteCut(opt.Query), index.MinTokenBytes, index.MaxTokenBytes)
	}
	if len(terms) > MaxQueryTerms {
		return nil, fmt.Errorf("%w: %d words, at most %d", ErrBadQuery, len(terms), MaxQueryTerms)
	}
	limit := opt.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	ix := plumbing.OpenIndex(r)
	cat, _, err := ix.Catalog(ctx)
	if err != nil {
		return nil, fmt.Errorf("search: catalog: %w", err)
	}
	si, rep, err := ix.Search(ctx, cat, false)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	ids, err := si.Lookup(terms, mask)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	res := &SearchResult{Query: opt.Query, Terms: terms, In: in, Hits: []SearchHit{}, Index: *rep}
	cands := filterCandidates(cat, ids, opt)
	res.Candidates = len(cands)
	for i, c := range cands {
		if len(res.Hits) == limit {
			res.Truncated = i < len(cands)
			break
		}
		hit, ok, err := verifyHit(ctx, r.Objects(), c, terms, mask)
		if err != nil {
			return nil, err
		}
		if ok {
			res.Hits = append(res.Hits, hit)
		}
	}
	return res, nil
}

// searchMask maps --in to field bits.
func searchMask(in string) (byte, string, error) {
	switch in {
	case "", InAll:
		return index.FieldAll, InAll, nil
	case InInput:
		return index.FieldInput, in, nil
	case InOutput:
		return index.FieldOutput, in, nil
	}
	return 0, "", fmt.Errorf("%w: --in %q: want input, output or all", ErrBadQuery, in)
}

// candidate is an event the index proposed, with its catalog facts.
type candidate struct {
	sum  index.EventSummary
	refs []string
}

// filterCandidates applies the kind and ref filters from the catalog and
// orders the rest newest first.
func filterCandidates(cat *index.Catalog, ids []objects.OID, opt SearchOptions) []candidate {
	var out []candidate
	for _, id := range ids {
		sum, ok := cat.Event(id)
		if !ok || opt.Kind != "" && sum.Kind != opt.Kind {
			continue
		}
		var names []string
		for _, run := range cat.RunsWithEvent(id) {
			names = append(names, cat.RefsOf(run)...)
		}
		slices.Sort(names)
		names = slices.Compact(names)
		if opt.RefGlob != "" && !slices.ContainsFunc(names, func(n string) bool { return MatchRef(opt.RefGlob, n) }) {
			continue
		}
		out = append(out, candidate{sum, names})
	}
	slices.SortStableFunc(out, func(a, b candidate) int {
		if a.sum.HasTime != b.sum.HasTime {
			if a.sum.HasTime {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(b.sum.Time, a.sum.Time), a.sum.ID.Compare(b.sum.ID))
	})
	return out
}

// verifyHit reads the candidate event and its blobs through g and checks
// that every term occurs in the searched fields.
func verifyHit(ctx context.Context, g objects.Getter, c candidate, terms []string, mask byte) (SearchHit, bool, error) {
	o, err := g.Get(ctx, c.sum.ID)
	if errors.Is(err, objects.ErrNotFound) {
		return SearchHit{}, false, nil // pruned since indexing: a miss
	}
	if err != nil {
		return SearchHit{}, false, fmt.Errorf("search: event %s: %w", c.sum.ID, err)
	}
	text, err := index.ReadEventText(ctx, g, o)
	if err != nil {
		return SearchHit{}, false, fmt.Errorf("search: %w", err)
	}
	found := map[string]bool{}
	var fields []string
	for _, f := range []struct {
		bit  byte
		name string
	}{{index.FieldInput, InInput}, {index.FieldOutput, InOutput}, {index.FieldMeta, "meta"}} {
		if mask&f.bit == 0 {
			continue
		}
		in := false
		for _, s := range text.Field(f.bit) {
			index.Tokenize(prefix(s), func(t string) {
				if slices.Contains(terms, t) {
					found[t], in = true, true
				}
			})
		}
		if in {
			fields = append(fields, f.name)
		}
	}
	if len(found) != len(terms) {
		return SearchHit{}, false, nil
	}
	hit := SearchHit{Event: c.sum.ID.String(), Kind: c.sum.Kind, Label: c.sum.Label, Fields: fields,
		RefCount: len(c.refs), Refs: c.refs[:min(len(c.refs), maxHitRefs)], Snippet: snippet(text.Field(mask), terms[0])}
	if hit.Refs == nil {
		hit.Refs = []string{}
	}
	if c.sum.HasTime {
		t := c.sum.Time
		hit.Time = &t
	}
	return hit, true, nil
}

// prefix bounds a text as the index did (payload strings are bounded by
// the object size; blobs were cut by ReadEventText).
func prefix(s string) string {
	if len(s) > index.MaxBlobPrefix {
		return s[:index.MaxBlobPrefix]
	}
	return s
}

// snippet returns the first line of texts holding term (case-insensitive),
// cut to maxSnippetRunes around it.
func snippet(texts []string, term string) string {
	for _, s := range texts {
		for _, line := range strings.Split(prefix(s), "\n") {
			low := strings.ToLower(line)
			i := strings.Index(low, term)
			if i < 0 || len(low) != len(line) {
				if i < 0 {
					continue
				}
				i = 0 // lower-casing changed byte offsets: start at the line
			}
			start := max(0, i-40)
			for start > 0 && !utf8.RuneStart(line[start]) {
				start--
			}
			r := []rune(strings.TrimSpace(line[start:]))
			if i > 40 {
				r = append([]rune("…"), r...)
			}
			if len(r) > maxSnippetRunes {
				r = append(r[:maxSnippetRunes-1], '…')
			}
			return string(r)
		}
	}
	return ""
}

// quoteCut quotes a query for an error line, cut at 80 characters (with
// "..." after the quote) so a pasted blob cannot flood the terminal.
func quoteCut(s string) string {
	if r := []rune(s); len(r) > 80 {
		return strconv.Quote(string(r[:80])) + "..."
	}
	return strconv.Quote(s)
}
