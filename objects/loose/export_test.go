package loose

// SetMaxSize lowers the store's object size limit so tests can reach it
// without gigabyte files. It exists only in test builds.
func (s *Store) SetMaxSize(n int64) { s.maxSize = n }
