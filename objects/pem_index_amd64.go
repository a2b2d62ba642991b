//go:build amd64 && !purego

package objects

import "golang.org/x/sys/cpu"

// pemCandidateFast is whether pemCandidate has a vector routine here.
var pemCandidateFast = cpu.X86.HasAVX2

// pemCandidate returns pemCandidateGeneric(b), computed with AVX2.
//
//go:noescape
func pemCandidate(b []byte) int
