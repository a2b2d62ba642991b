package httpserve

import (
	"context"
	"errors"
	"net/http"

	"github.com/tinehq/tine/objects"
)

// searchReply is the body of POST search, fields in key order.
type searchReply struct {
	Objects   []string `json:"objects"`
	Truncated bool     `json:"truncated"`
}

// search is POST …/search (spec §5.8): the ids of the tenant's objects of
// the optional type, newest first, at most SearchPage, and whether more
// exist. Newest is the order the server received them (search_journal.go);
// objects it holds but never received in a pack (written into the tenant
// repository by other means, or received while the journal could not be
// written) follow every journalled one, in ascending oid order: their age
// is unknown, and that is the order the store lists them in, so the
// listing stops as soon as the page is full and one more is seen. A
// search takes a negotiate slot (two at a time, like negotiate): it reads
// the journal and lists ids, so a burst of searches waits, or gets 503,
// instead of listing a large tenant many times at once.
func (s *Server) search(c *call) *httpError {
	body, herr := readObject(c.r, s.cfg.MaxBodyBytes, "type")
	if herr != nil {
		return herr
	}
	kind := journalAll
	if !isNull(body["type"]) {
		var t string
		if err := jsonString(body["type"], &t); err != nil || !objects.Type(t).Valid() {
			return invalid("type is not an object type (annotation, attestation, blob, event, run)")
		}
		kind = t
	}
	c.detail("type", kind)
	release, herr := slot(c.r.Context(), s.walkSlots)
	if herr != nil {
		return herr
	}
	defer release()
	reply := searchReply{Objects: []string{}}
	r, err := s.repo(c.tenant, false)
	if err != nil {
		return internal(err.Error())
	}
	if r == nil {
		writeJSON(c.w, http.StatusOK, reply)
		return nil
	}
	ctx := c.r.Context()
	journal, err := readJournal(s.journalPath(c.tenant, kind), r.Algo(), kind)
	if err != nil {
		return internal(err.Error())
	}
	picked := make(map[objects.OID]bool, len(journal))
	for _, id := range journal {
		ok, err := r.Objects().Has(ctx, id)
		if err != nil {
			return internal(err.Error())
		}
		// A journalled object a gc removed since is no longer the
		// tenant's.
		if ok {
			picked[id] = true
			reply.Objects = append(reply.Objects, id.String())
		}
	}
	rest, more, err := listUnjournalled(ctx, r.Objects(), kind, picked, SearchPage-len(reply.Objects))
	if err != nil {
		return internal(err.Error())
	}
	for _, id := range rest {
		reply.Objects = append(reply.Objects, id.String())
	}
	reply.Truncated = more
	writeJSON(c.w, http.StatusOK, reply)
	return nil
}

// errListDone stops a listing that has what it needs: a full page and
// one more id, or every id of its type.
var errListDone = errors.New("search listing done")

// listUnjournalled returns, in enumeration order, the first room ids of
// kind (an object type or journalAll) that st holds and picked lacks, and
// whether st holds more. The listing stops at the first id past those, or
// past kind's type (enumeration is by type first), so the ids it visits
// are at most those of the types before kind, len(picked) and room+1.
func listUnjournalled(ctx context.Context, st objects.Store, kind string, picked map[objects.OID]bool, room int) ([]objects.OID, bool, error) {
	var out []objects.OID
	more, visited := false, 0
	err := st.List(ctx, func(id objects.OID) error {
		visited++
		if kind != journalAll && string(id.Type) != kind {
			if string(id.Type) > kind {
				return errListDone // past kind's ids: none follow
			}
			return nil
		}
		if picked[id] {
			return nil
		}
		if len(out) == room {
			more = true
			return errListDone
		}
		out = append(out, id)
		return nil
	})
	if searchListHook != nil {
		searchListHook(visited)
	}
	if err != nil && !errors.Is(err, errListDone) {
		return nil, false, err
	}
	return out, more, nil
}

// searchListHook, when set (tests), receives how many ids a search's
// listing visited.
var searchListHook func(visited int)
