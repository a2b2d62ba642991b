package httpserve

// SetUploadReadHook sets the hook finalize runs before it reads an upload
// whole, for the duration of a test.
func SetUploadReadHook(f func(*Server)) func() {
	uploadReadHook = f
	return func() { uploadReadHook = nil }
}

// PackSlotsInUse returns how many fetch and install slots are taken.
func PackSlotsInUse(s *Server) int { return len(s.packSlots) }
