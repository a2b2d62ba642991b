package httpserve

// SetUploadReadHook sets the hook finalize runs before it reads an upload
// whole, for the duration of a test.
func SetUploadReadHook(f func(*Server)) func() {
	uploadReadHook = f
	return func() { uploadReadHook = nil }
}

// PackSlotsInUse returns how many fetch and install slots are taken.
func PackSlotsInUse(s *Server) int { return len(s.packSlots) }

// HoldWalkSlots takes every negotiate slot until the returned function
// gives them back.
func HoldWalkSlots(s *Server) func() {
	n := cap(s.walkSlots)
	for range n {
		s.walkSlots <- struct{}{}
	}
	return func() {
		for range n {
			<-s.walkSlots
		}
	}
}

// SetSearchListHook sets the hook that receives how many ids a search's
// listing visited, for the duration of a test.
func SetSearchListHook(f func(visited int)) func() {
	searchListHook = f
	return func() { searchListHook = nil }
}

// SetRefCheckedHook sets the hook a ref update runs between its history
// check and the ref's move, for the duration of a test.
func SetRefCheckedHook(f func(tenant string)) func() {
	refCheckedHook = f
	return func() { refCheckedHook = nil }
}
