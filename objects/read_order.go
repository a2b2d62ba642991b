package objects

// ReadOrderer is implemented by stores for which the order of reads
// matters: a storage pack rebuilds a delta-encoded run from its base, so
// reading runs in the order they were written applies each delta once,
// while reading them by id can re-apply a long chain for every run (the
// catalog of a 1,000-branch loop, issue 13).
type ReadOrderer interface {
	// SortForRead reorders ids in place into the order the store reads
	// them at least cost. It never adds, drops or changes an id, and the
	// order is only a hint: every read still verifies.
	SortForRead(ids []OID)
}

// SortForRead reorders ids with s's own order when s is a ReadOrderer,
// and leaves them as they are otherwise.
func SortForRead(s any, ids []OID) {
	if ro, ok := s.(ReadOrderer); ok {
		ro.SortForRead(ids)
	}
}
