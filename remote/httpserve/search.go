package httpserve

import (
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
// written) follow every journalled one, in descending oid order.
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
	// The rest, in descending oid order: keep the last ids of the
	// ascending enumeration in a ring of the room left.
	room := SearchPage - len(reply.Objects)
	ring := make([]objects.OID, 0, room)
	next, total := 0, 0
	err = r.Objects().List(ctx, func(id objects.OID) error {
		if kind != journalAll && string(id.Type) != kind {
			return nil
		}
		total++
		if picked[id] || room == 0 {
			return nil
		}
		if len(ring) < room {
			ring = append(ring, id)
		} else {
			ring[next] = id
			next = (next + 1) % room
		}
		return nil
	})
	if err != nil {
		return internal(err.Error())
	}
	for i := len(ring) - 1; i >= 0; i-- {
		reply.Objects = append(reply.Objects, ring[(next+i)%len(ring)].String())
	}
	reply.Truncated = total > len(reply.Objects)
	writeJSON(c.w, http.StatusOK, reply)
	return nil
}
