package objects

import "context"

// StagingStore reads through to Store but keeps what is put in memory, in
// order, instead of writing it: an install (InstallPack) verifies and
// orders a frame's objects into it, so the caller can refuse the frame, or
// write Staged later, with nothing written in between.
type StagingStore struct {
	Store
	// Staged holds the objects put, in the order they were put.
	Staged []*Object
}

// Put stages o.
func (s *StagingStore) Put(_ context.Context, o *Object) error {
	s.Staged = append(s.Staged, o)
	return nil
}

// PutBatch stages objs in order.
func (s *StagingStore) PutBatch(_ context.Context, objs []*Object) error {
	s.Staged = append(s.Staged, objs...)
	return nil
}
