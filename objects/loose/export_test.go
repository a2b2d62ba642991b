package loose

// SetMaxSize lowers the store's object size limit so tests can reach it
// without gigabyte files. It exists only in test builds.
func (s *Store) SetMaxSize(n int64) { s.maxSize = n }

// SetFaultHook makes the store consult hook before each step of its write
// and read paths (faults.go), so the shared fault suite
// (objectstest.RunFaults) can fail any of them. It exists only in test
// builds and must be called before the store is used.
func SetFaultHook(s *Store, hook func(step, path string) error) { s.faults = hook }

// SetDirectIO turns the direct-I/O attempt of streamed writes on or off
// and returns the previous setting. It exists only in test builds.
func SetDirectIO(on bool) bool { old := directIO; directIO = on; return old }

// BlockSize is how many bytes a streamed blob's blocks hold when they are
// handed to the writers, for tests of the block edges.
const BlockSize = blockSize

// BlockCap is the size of a streamed blob's blocks, which the reader
// leaves for a fresh one when less than objects.ChunkRoom is left.
const BlockCap = blockCap
