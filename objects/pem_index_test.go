package objects

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// pemIndexCases are inputs whose answers sit at the edges of
// pemCandidate's 32-position blocks and of the input.
func pemIndexCases() [][]byte {
	var cases [][]byte
	for _, n := range []int{0, 1, 5, 6, 10, 11, 12, 31, 32, 36, 37, 38, 42, 43, 63, 64, 69, 70, 100, 4096} {
		for _, at := range []int{0, 1, 26, 27, 31, 32, 33, n - 12, n - 11, n - 10, n - 6, n - 5} {
			for _, needle := range []string{"-----BEGIN ", "-----BEGIN", "----B", "-   -B", "-----BEGIN-", "------BEGIN "} {
				b := bytes.Repeat([]byte{'-'}, n)
				if n > 0 {
					b = bytes.Repeat([]byte("x-"), n)[:n]
				}
				if at < 0 || at+len(needle) > n {
					continue
				}
				copy(b[at:], needle)
				cases = append(cases, b)
			}
		}
	}
	return append(cases, []byte("-----BEGIN -----BEGIN "), bytes.Repeat([]byte("-----B"), 100))
}

// TestPEMCandidateMatchesGeneric checks the vector routine (where the CPU
// has one) against its contract written in Go, and indexPEMBegin against
// bytes.Index, at every block and input edge.
func TestPEMCandidateMatchesGeneric(t *testing.T) {
	for _, b := range pemIndexCases() {
		checkPEMIndex(t, b)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("-BEGIN x")
	for range 20000 {
		b := make([]byte, rng.IntN(200))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		checkPEMIndex(t, b)
	}
}

func checkPEMIndex(t *testing.T, b []byte) {
	t.Helper()
	if got, want := pemCandidate(b), pemCandidateGeneric(b); got != want {
		t.Fatalf("pemCandidate(%q) = %d, want %d", b, got, want)
	}
	// Every suffix too: the routine must not read or report past the end.
	for i := 0; i <= len(b) && i < 40; i++ {
		if got, want := pemCandidate(b[i:]), pemCandidateGeneric(b[i:]); got != want {
			t.Fatalf("pemCandidate(%q) = %d, want %d", b[i:], got, want)
		}
		if got, want := indexPEMBegin(b[:len(b)-i]), bytes.Index(b[:len(b)-i], pemBeginMarker); got != want {
			t.Fatalf("indexPEMBegin(%q) = %d, want %d", b[:len(b)-i], got, want)
		}
	}
}

// FuzzIndexPEMBegin proves indexPEMBegin equal to bytes.Index and the
// vector pemCandidate equal to its Go contract on any input.
func FuzzIndexPEMBegin(f *testing.F) {
	for _, b := range pemIndexCases() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkPEMIndex(t, b)
	})
}

// TestOpenPEMMatchesRegexp checks the marker search in front of openPEM
// changes none of its answers.
func TestOpenPEMMatchesRegexp(t *testing.T) {
	key := "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n"
	end := "-----END RSA PRIVATE KEY-----\n"
	for _, s := range []string{
		"", "plain text\n", key, key + end, key + end + key, "x" + key, "-----BEGIN CERTIFICATE-----\n" + key,
		key + "-----END CERTIFICATE-----\n", "-----BEGIN PRIVATE KEY-----", "-----BEGIN -----BEGIN PRIVATE KEY-----",
	} {
		if got, want := openPEM([]byte(s)), openPEMRegexp([]byte(s)); got != want {
			t.Errorf("openPEM(%q) = %v, want %v", s, got, want)
		}
	}
}

// openPEMRegexp is openPEM as it was before the marker search: the
// reference it must match.
func openPEMRegexp(b []byte) bool {
	locs := pemBegin().FindAllIndex(b, -1)
	if len(locs) == 0 {
		return false
	}
	last := locs[len(locs)-1]
	return !pemEnd().Match(b[last[1]:])
}

// BenchmarkIndexPEMBegin searches a chunk of random bytes, as the
// redacting reader searches each chunk of a large binary file, with
// indexPEMBegin and with the bytes.Index (the regexp's prefix search) it
// replaces.
func BenchmarkIndexPEMBegin(b *testing.B) {
	chunk := make([]byte, benchPEMChunk)
	rand.NewChaCha8([32]byte{'p', 'e', 'm'}).Read(chunk)
	if bytes.Contains(chunk, pemBeginMarker) {
		b.Fatal("random chunk holds the marker")
	}
	for _, bc := range []struct {
		name string
		f    func([]byte) int
	}{
		{"indexPEMBegin", indexPEMBegin},
		{"bytes.Index", func(c []byte) int { return bytes.Index(c, pemBeginMarker) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(chunk)))
			for b.Loop() {
				if bc.f(chunk) != -1 {
					b.Fatal("found a marker")
				}
			}
		})
	}
}

var benchPEMChunk = RedactChunk
