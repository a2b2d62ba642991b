package objects

import (
	"fmt"
	"slices"
)

// RunCheck is a run reduced to what Validate still needs of it once it has
// been read: the verdict of the rules that read the run alone, and its
// links, events, roots and tips, each oid kept as its number in an
// OIDTable. A checker that must read every object before it can check
// any link (fsck) keeps a RunCheck per run instead of the run: about 4
// bytes per event the run lists, not the run's body and parsed value
// (over 100 bytes per event). NewRunCheck and then Validate give
// exactly the error Validate gives on the run (TestRunCheckMatchesValidate).
type RunCheck struct {
	id OID
	// err is Links' error: Validate's answer whatever else holds.
	err error
	// graphErr is the verdict of the graph rules that read the run alone
	// (parseRunGraph); events, roots and tips are set only without it.
	graphErr          error
	events            []uint32
	roots, tips       []uint32
	rootsErr, tipsErr error
	// links are the numbers of Links(run) after its roots, tips and
	// events when Links lists those first (split); otherwise all of them.
	links []uint32
	split bool
}

// NewRunCheck applies to run the rules of Validate that read nothing
// else and keeps the rest for Validate, numbering oids in t. It fails
// only when run is not a run or t is full.
func NewRunCheck(run *Object, t *OIDTable) (*RunCheck, error) {
	if run.Type != TypeRun {
		return nil, fmt.Errorf("run check: %s is a %s object, not a run", run.ID, run.Type)
	}
	c := &RunCheck{id: run.ID}
	p := linkParser{o: run, a: run.ID.Algo}
	links, err := p.extract()
	if err != nil {
		c.err = err
		return c, nil
	}
	g, err := parseLinkedRunGraph(&p)
	if err != nil {
		c.graphErr = err
		c.links, err = t.Numbers(nil, links)
		return c, err
	}
	if c.events, err = t.Numbers(nil, g.events); err != nil {
		return nil, err
	}
	if c.roots, err = t.Numbers(nil, g.roots); err != nil {
		return nil, err
	}
	if c.tips, err = t.Numbers(nil, g.tips); err != nil {
		return nil, err
	}
	c.rootsErr, c.tipsErr = g.rootsErr, g.tipsErr
	// Links lists roots, tips, then events, then blobs (linkParser.run):
	// keep the lists once when that holds, and every link otherwise.
	head := len(g.roots) + len(g.tips) + len(g.events)
	if head <= len(links) && slices.Equal(links[:len(g.roots)], g.roots) &&
		slices.Equal(links[len(g.roots):len(g.roots)+len(g.tips)], g.tips) &&
		slices.Equal(links[len(g.roots)+len(g.tips):head], g.events) {
		c.split = true
		links = links[head:]
	}
	if c.links, err = t.Numbers(nil, links); err != nil {
		return nil, err
	}
	return c, nil
}

// ID returns the run's oid.
func (c *RunCheck) ID() OID { return c.id }

// Validate applies the rest of Validate through r (link existence, then
// the graph rules that read the run's events) and returns the error
// Validate returns on the run. t must be the table NewRunCheck numbered
// the oids in.
func (c *RunCheck) Validate(t *OIDTable, r Resolver) error {
	if c.err != nil {
		return c.err
	}
	var links []OID
	if c.split {
		links = make([]OID, 0, len(c.roots)+len(c.tips)+len(c.events)+len(c.links))
		links = t.OIDs(t.OIDs(t.OIDs(links, c.roots), c.tips), c.events)
	}
	links = t.OIDs(links, c.links)
	if err := CheckLinksExist(links, r); err != nil {
		return fmt.Errorf("%s %s: %w", TypeRun, c.id, err)
	}
	if c.graphErr != nil {
		return fmt.Errorf("run %s: %w", c.id, c.graphErr)
	}
	g := &runGraph{rootsErr: c.rootsErr, tipsErr: c.tipsErr}
	if c.split {
		n, m := len(c.roots), len(c.roots)+len(c.tips)
		g.roots, g.tips, g.events = links[:n:n], links[n:m:m], links[m:m+len(c.events)]
	} else {
		g.events = t.OIDs(nil, c.events)
		g.roots = t.OIDs(nil, c.roots)
		g.tips = t.OIDs(nil, c.tips)
	}
	if err := g.check(r); err != nil {
		return fmt.Errorf("run %s: %w", c.id, err)
	}
	return nil
}
