package objects

import "bytes"

// pemBeginMarker is the literal every private-key block's BEGIN line
// starts with (pemBegin's prefix).
var pemBeginMarker = []byte("-----BEGIN ")

// indexPEMBegin returns the index of the first pemBeginMarker in b, or -1:
// bytes.Index(b, pemBeginMarker), faster on binary data. The redacting
// reader asks this of every chunk of every large file (issue 13: 14% of
// `hash-object -w`'s CPU on a 1 GiB file). bytes.Index calls IndexByte for
// the marker's first byte, which random bytes hold once in 256, so it
// costs a call per 256 bytes; pemCandidate instead tests three of the
// marker's bytes at 32 positions a time where the CPU can (a random
// position passes once in 16 million), and the marker is then checked whole.
func indexPEMBegin(b []byte) int {
	if !pemCandidateFast {
		return bytes.Index(b, pemBeginMarker)
	}
	for i := 0; ; {
		j := pemCandidate(b[i:])
		if j < 0 {
			return -1
		}
		if bytes.HasPrefix(b[i+j:], pemBeginMarker) {
			return i + j
		}
		i += j + 1
	}
}

// pemCandidateGeneric is pemCandidate's contract in plain Go, the
// reference its assembly is tested against: the smallest p with p+6 <=
// len(b), b[p] == '-', b[p+4] == '-' and b[p+5] == 'B', or -1.
func pemCandidateGeneric(b []byte) int {
	for p := 0; p+6 <= len(b); p++ {
		if b[p] == '-' && b[p+4] == '-' && b[p+5] == 'B' {
			return p
		}
	}
	return -1
}
