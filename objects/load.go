package objects

import (
	"errors"
	"fmt"
)

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

// validateAppendParsed is ValidateAppend on the parsed payloads: every
// link of run and base parsed, the graph checked by CheckRunAppend. It
// decides what the byte check (validateAppendBytes) leaves to it.
func validateAppendParsed(run, base *Object, r Resolver) ([]OID, error) {
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
	return fresh, nil
}

// ValidateAppend is Validate for run, a run that is base plus events
// appended at the end, read through r. base must be a valid run (it passed
// Validate, or ValidateAppend against its own base; see CheckRunAppend):
// tine writes no other, and the run a ref names was so written. It
// returns the links of run that base does not hold, one per occurrence,
// and costs the new work, not the run's length:
//
//   - run's events list must begin with base's, byte for byte (both
//     canonical, so equal bytes are equal lists); only the appended oids
//     are parsed, checked for duplicates against base's list by a scan of
//     its bytes, and read through r;
//   - run's other links (roots, tips, manifests, *_blob) are parsed and
//     checked as Links checks them, and only those base does not hold are
//     checked for existence (the objects a ref's run reaches are never
//     pruned);
//   - the run graph is checked as CheckRunAppend checks it, with an
//     event's position in base's list found from its bytes.
//
// Every rule Validate applies is applied, with the same reason
// (TestValidateAppendBytesMatchesParsed). A body the byte check does not
// take apart (SplitRunBody), or a run whose list is not base's followed by
// more, gets the parsed check of every link; a run that is not such an
// append is an error wrapping ErrNotAppend.
func ValidateAppend(run, base *Object, r Resolver) ([]OID, error) {
	if run.Type == TypeRun && base.Type == TypeRun && run.ID.Algo == base.ID.Algo {
		fresh, err := validateAppendBytes(run, base, r)
		if !errors.Is(err, errNoByteCheck) {
			return fresh, err
		}
	}
	return validateAppendParsed(run, base, r)
}
