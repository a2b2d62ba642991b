package httpserve

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// maxRecentBytes bounds the bodies recentObjects keeps, all tenants
// together.
const maxRecentBytes = 64 << 20

// recentObjects keeps the last non-blob objects the server installed, per
// tenant, oldest dropped first, so the catalog update after a ref moves
// reads the runs and events a push just brought from memory instead of
// back from the tenant's store (as a fetch's receiver does on the client
// side). Every object was verified (hash, links, graph) when installed,
// and the cache answers only what it holds, so a miss is a store read.
type recentObjects struct {
	mu    sync.Mutex
	byTen map[string]map[objects.OID]*objects.Object
	order []recentEntry
	bytes int
}

// recentEntry is one kept object, in arrival order.
type recentEntry struct {
	tenant string
	id     objects.OID
	size   int
}

func newRecentObjects() *recentObjects {
	return &recentObjects{byTen: map[string]map[objects.OID]*objects.Object{}}
}

// add keeps objs' non-blob objects of tenant, dropping the oldest past
// maxRecentBytes.
func (c *recentObjects) add(tenant string, objs []*objects.Object) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.byTen[tenant]
	if m == nil {
		m = map[objects.OID]*objects.Object{}
		c.byTen[tenant] = m
	}
	for _, o := range objs {
		if o.Type == objects.TypeBlob || len(o.Body) > maxRecentBytes/4 || m[o.ID] != nil {
			continue
		}
		// A copy of the body: a decoded frame's objects share one buffer,
		// which one kept object would otherwise keep whole.
		kept := *o
		kept.Body = bytes.Clone(o.Body)
		m[o.ID] = &kept
		c.order = append(c.order, recentEntry{tenant: tenant, id: o.ID, size: len(o.Body)})
		c.bytes += len(o.Body)
	}
	drop := 0
	for c.bytes > maxRecentBytes && drop < len(c.order) {
		e := c.order[drop]
		delete(c.byTen[e.tenant], e.id)
		c.bytes -= e.size
		drop++
	}
	if drop > 0 {
		c.order = append(c.order[:0:0], c.order[drop:]...)
	}
}

// getter returns tenant's kept objects as an objects.Getter answering
// objects.ErrNotFound for anything else.
func (c *recentObjects) getter(tenant string) objects.Getter {
	return recentGetter{c: c, tenant: tenant}
}

// recentGetter is recentObjects.getter's result.
type recentGetter struct {
	c      *recentObjects
	tenant string
}

// Get returns a kept object of the tenant, else objects.ErrNotFound.
func (g recentGetter) Get(_ context.Context, id objects.OID) (*objects.Object, error) {
	g.c.mu.Lock()
	o := g.c.byTen[g.tenant][id]
	g.c.mu.Unlock()
	if o == nil {
		return nil, objects.NotFound(id)
	}
	return o, nil
}

// updateCatalog brings tenant's catalog up to date after one of its refs
// moved, as every tine verb that writes does, reading what the server
// installed recently from memory. The catalog is derived data: a failure
// is logged and the next reader (a fetch's walk) updates it instead.
func (s *Server) updateCatalog(ctx context.Context, tenant string, r *plumbing.Repo) {
	if _, err := plumbing.OpenIndexReading(r, s.recent.getter(tenant)).Update(ctx); err != nil {
		if s.cfg.Log != nil {
			s.cfg.Log(fmt.Sprintf("tenant %s: catalog update after a ref update: %v", tenant, err))
		}
	}
}
