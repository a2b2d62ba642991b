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
	if err := CheckLinksExist(links, r); err != nil {
		return nil, fmt.Errorf("%s %s: %w", o.Type, o.ID, err)
	}
	if err := CheckRunGraph(o, r); err != nil {
		return nil, err
	}
	if err := CheckAnnotationChain(o, r); err != nil {
		return nil, err
	}
	return links, nil
}
