//go:build !amd64 || purego

package objects

// pemCandidateFast is whether pemCandidate has a vector routine here: it
// has none, so indexPEMBegin uses bytes.Index.
const pemCandidateFast = false

// pemCandidate is pemCandidateGeneric where no vector routine exists.
func pemCandidate(b []byte) int { return pemCandidateGeneric(b) }
