//go:build amd64 && !purego

package objects

import "github.com/klauspost/cpuid/v2"

// pemCandidateFast is whether pemCandidate has a vector routine here.
// klauspost/cpuid answers it, not golang.org/x/sys/cpu: zeebo/blake3
// links cpuid and runs its detection at every start anyway, while x/sys/cpu,
// imported for this flag alone, ran CPUID instructions of its own at start
// (each a trap to the hypervisor on a virtual machine: about 2% of a
// `rev-parse` process's CPU, issue 13 item 6). Both check that the OS
// saves the AVX registers.
var pemCandidateFast = cpuid.CPU.Has(cpuid.AVX2)

// pemCandidate returns pemCandidateGeneric(b), computed with AVX2.
//
//go:noescape
func pemCandidate(b []byte) int
