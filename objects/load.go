package objects

import "fmt"

// Validate runs every per-object rule fsck and a verified read need on an
// already decoded object (op object.load minus the decode): the structural
// link rules and event metrics (Links), link existence (CheckLinksExist),
// the run graph (CheckRunGraph) and the annotation chain
// (CheckAnnotationChain), in that order. It returns the object's links, one
// per occurrence.
func Validate(o *Object, r Resolver) ([]OID, error) {
	links, err := Links(o)
	if err != nil {
		return nil, err
	}
	if err := ValidateLinked(o, links, r); err != nil {
		return nil, err
	}
	return links, nil
}

// ValidateLinked is Validate for a caller that already parsed o's links
// with Links (a pack install or a transfer's receiver parses each
// object's links once for its own checks): links must be what Links(o)
// returned.
func ValidateLinked(o *Object, links []OID, r Resolver) error {
	if err := CheckLinksExist(links, r); err != nil {
		return fmt.Errorf("%s %s: %w", o.Type, o.ID, err)
	}
	if err := CheckRunGraph(o, r); err != nil {
		return err
	}
	return CheckAnnotationChain(o, r)
}

// ValidateAppend is Validate for run, a run that is base plus events
// appended at the end, read through r (see CheckRunAppend for what base
// must be): its links are parsed
// and checked as Validate checks them, but only the links base does not
// hold are checked for existence (base's were when base was written, and
// the objects a ref's run reaches are never pruned), and the run graph is
// checked by CheckRunAppend, which reads no event of base. A run that is
// not such an append is an error wrapping ErrNotAppend.
func ValidateAppend(run, base *Object, r Resolver) ([]OID, error) {
	links, err := Links(run)
	if err != nil {
		return nil, err
	}
	baseLinks, err := Links(base)
	if err != nil {
		return nil, fmt.Errorf("base %s: %w", base.ID, err)
	}
	old := make(map[OID]bool, len(baseLinks))
	for _, l := range baseLinks {
		old[l] = true
	}
	var fresh []OID
	for _, l := range links {
		if !old[l] {
			fresh = append(fresh, l)
		}
	}
	if err := CheckLinksExist(fresh, r); err != nil {
		return nil, fmt.Errorf("%s %s: %w", run.Type, run.ID, err)
	}
	if err := CheckRunAppend(run, base, r); err != nil {
		return nil, err
	}
	return links, nil
}
