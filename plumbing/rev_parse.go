package plumbing

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// Revision syntax bounds.
const (
	// MinPrefixLen is the shortest hex prefix accepted as an object name.
	MinPrefixLen = 4
	// MaxRevisionLen bounds a revision string; longer ones are bad syntax.
	MaxRevisionLen = 1024
	// maxCandidates bounds the candidates an AmbiguousError lists.
	maxCandidates = 16
)

// dwimNamespaces is the order short ref names are tried in; a short name
// matching refs in two namespaces is ambiguous rather than resolved by order.
var dwimNamespaces = []string{"heads", "tags", "experiments", "promotions", "remotes", "annotations"}

// RevParseOptions configures RevParse.
type RevParseOptions struct {
	// Revision names an object (see ResolveRevision for the syntax).
	Revision string
}

// RevParseResult is what `tine rev-parse` reports.
type RevParseResult struct {
	// Revision is the input.
	Revision string `json:"revision"`
	// OID is the full object id it names.
	OID string `json:"oid"`
	// Type is the object's type.
	Type objects.Type `json:"type"`
	// Ref is the normalized ref the revision went through, if any.
	Ref string `json:"ref,omitempty"`
	// Stored is false for REV~N naming a run no stored object holds: OID
	// is then the oid that run would have if written (porcelain/runs
	// derives it).
	Stored bool `json:"stored"`
}

// RevParse resolves a revision to a full oid; see ResolveRevision.
func RevParse(ctx context.Context, r *Repo, opt RevParseOptions) (*RevParseResult, error) {
	id, ref, err := r.ResolveRevision(ctx, opt.Revision)
	if err != nil {
		return nil, err
	}
	return &RevParseResult{Revision: opt.Revision, OID: id.String(), Type: id.Type, Ref: ref, Stored: true}, nil
}

// Resolve returns the oid a revision names; see ResolveRevision.
func (r *Repo) Resolve(ctx context.Context, rev string) (objects.OID, error) {
	id, _, err := r.ResolveRevision(ctx, rev)
	return id, err
}

// ResolveRevision resolves rev to an existing object and the normalized ref
// it went through ("" for an object name). Accepted forms:
//
//   - a full oid of the repository's hash profile;
//   - a unique lowercase hex prefix of at least MinPrefixLen digits;
//   - a ref name, with or without "refs/" (heads/main, refs/tags/v1);
//   - a short ref name tried under heads/, tags/, experiments/,
//     promotions/, remotes/ and annotations/ (main);
//   - REF@{n}: the ref's value n updates ago from its reflog; REF@{0} is
//     its current value;
//   - REV~N (any of the above naming a run, then one or more ~N; "~" is
//     ~1): the run as it was N events ago, when a stored run holds it
//     (AncestorRun); otherwise a *NotStoredError, which porcelain/runs
//     turns into a derived run.
//
// A prefix or short name with several matches (objects and refs alike) is
// an *AmbiguousError; no match is ErrUnknownRevision, except an oid, a
// prefix or a REF@{n} naming only objects the shallow file lists (not
// stored by design), which is ErrBeyondShallow; a string none of the forms
// can spell is ErrBadRevision.
func (r *Repo) ResolveRevision(ctx context.Context, rev string) (objects.OID, string, error) {
	return r.resolveRevision(ctx, rev, true)
}

// resolveRevision is ResolveRevision. With explain false a miss is
// ErrUnknownRevision whether or not the shallow file lists it, and the file
// is not read: cat-object --batch reports both as missing, and parsing the
// file (up to refs.MaxShallowBytesBLAKE3) once a query would make a stream
// of unknown prefixes crawl.
func (r *Repo) resolveRevision(ctx context.Context, rev string, explain bool) (objects.OID, string, error) {
	if rev == "" || len(rev) > MaxRevisionLen {
		return objects.OID{}, "", fmt.Errorf("revision %.40q: %w", rev, ErrBadRevision)
	}
	if strings.Contains(rev, "~") {
		// No ref name, oid or prefix holds a '~' (refs.NormalizeName).
		return r.resolveAncestry(ctx, rev, explain)
	}
	if base, n, ok, err := splitReflogIndex(rev); err != nil {
		return objects.OID{}, "", err
	} else if ok {
		return r.resolveReflog(ctx, rev, base, n, explain)
	}
	if strings.Count(rev, ":") == 2 {
		id, err := objects.ParseOIDFor(r.algo, rev)
		if err != nil {
			return objects.OID{}, "", fmt.Errorf("revision %q: %w: %w", rev, ErrBadRevision, err)
		}
		ok, err := r.objs.Has(ctx, id)
		if err != nil {
			return objects.OID{}, "", err
		}
		if !ok && !explain {
			return objects.OID{}, "", fmt.Errorf("object %s: %w", id, ErrUnknownRevision)
		}
		if !ok {
			return objects.OID{}, "", r.notStoredError(id)
		}
		return id, "", nil
	}
	var objs []objects.OID
	if isHexPrefix(rev) {
		var err error
		if objs, err = r.prefixMatches(ctx, rev); err != nil {
			return objects.OID{}, "", err
		}
	}
	names, legal, err := r.refMatches(ctx, rev)
	if err != nil {
		return objects.OID{}, "", err
	}
	switch total := len(objs) + len(names); {
	case total == 0 && !legal && !isHexPrefix(rev):
		return objects.OID{}, "", fmt.Errorf("revision %q is neither an oid, a hex prefix of %d+ digits nor a ref name: %w", rev, MinPrefixLen, ErrBadRevision)
	case total == 0 && isShortHex(rev):
		return objects.OID{}, "", fmt.Errorf("revision %q: no ref has that name, and a hex prefix needs at least %d digits: %w", rev, MinPrefixLen, ErrUnknownRevision)
	case total == 0 && isHexPrefix(rev) && explain:
		if err := r.shallowPrefixError(rev); err != nil {
			return objects.OID{}, "", err
		}
		return objects.OID{}, "", fmt.Errorf("revision %q: %w", rev, ErrUnknownRevision)
	case total == 0:
		return objects.OID{}, "", fmt.Errorf("revision %q: %w", rev, ErrUnknownRevision)
	case total > 1:
		c := make([]string, 0, total)
		for _, id := range objs {
			c = append(c, id.String())
		}
		c = append(c, names...)
		if len(c) > maxCandidates {
			c = append(c[:maxCandidates], "...")
		}
		return objects.OID{}, "", &AmbiguousError{Revision: rev, Candidates: c}
	case len(objs) == 1:
		return objs[0], "", nil
	}
	id, err := r.refs.Read(ctx, names[0])
	if err != nil {
		return objects.OID{}, "", fmt.Errorf("revision %q: %w", rev, err)
	}
	return id, names[0], nil
}

// splitReflogIndex splits "REF@{n}". ok is false when rev has no "@{".
func splitReflogIndex(rev string) (base string, n int, ok bool, err error) {
	i := strings.Index(rev, "@{")
	if i < 0 {
		return "", 0, false, nil
	}
	digits, closed := strings.CutSuffix(rev[i+2:], "}")
	if i == 0 || !closed || digits == "" || len(digits) > 9 || strings.Trim(digits, "0123456789") != "" {
		return "", 0, false, fmt.Errorf("revision %q: want REF@{n} with a decimal n: %w", rev, ErrBadRevision)
	}
	n, _ = strconv.Atoi(digits)
	return rev[:i], n, true, nil
}

// isHexPrefix reports whether s could be an abbreviated digest.
func isHexPrefix(s string) bool {
	if len(s) < MinPrefixLen || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// isShortHex reports whether s is lowercase hex too short to be a prefix,
// so a user who meant one is told how many digits it takes.
func isShortHex(s string) bool {
	return s != "" && len(s) < MinPrefixLen && strings.Trim(s, "0123456789abcdef") == ""
}

// refMatches returns the existing refs rev can name: itself (with or
// without refs/) and the short-name expansions. legal reports whether any
// spelling was a legal ref name at all.
func (r *Repo) refMatches(ctx context.Context, rev string) (names []string, legal bool, err error) {
	// A full ref name that exists is taken as is, as git does: heads/x never
	// becomes ambiguous with heads/heads/x.
	if name, nerr := refs.NormalizeName(rev); nerr == nil {
		if _, rerr := r.refs.Read(ctx, name); rerr == nil {
			return []string{name}, true, nil
		}
	}
	try := []string{rev}
	short := strings.TrimPrefix(rev, "refs/")
	for _, ns := range dwimNamespaces {
		try = append(try, ns+"/"+short)
	}
	seen := map[string]bool{}
	for _, s := range try {
		name, nerr := refs.NormalizeName(s)
		if nerr != nil || seen[name] {
			continue
		}
		legal = true
		seen[name] = true
		_, rerr := r.refs.Read(ctx, name)
		switch {
		case rerr == nil:
			names = append(names, name)
		case errors.Is(rerr, refs.ErrNotFound):
		default:
			return nil, legal, fmt.Errorf("ref %s: %w", name, rerr)
		}
	}
	return names, legal, nil
}
