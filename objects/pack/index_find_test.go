package pack

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// spIndexOfKeys returns an index holding only sorted keys and their
// fan-out table: what find reads.
func spIndexOfKeys(keys []spKey) *spIndex {
	x := &spIndex{count: len(keys), keys: make([]byte, 0, len(keys)*spKeySize), fanout: make([]byte, 4*256)}
	for _, k := range keys {
		x.keys = append(x.keys, k[:]...)
	}
	for b := range 256 {
		n := 0
		for n < len(keys) && int(keys[n][0]) <= b {
			n++
		}
		binary.BigEndian.PutUint32(x.fanout[4*b:], uint32(n))
	}
	return x
}

// TestIndexFind: find answers as a linear scan does, for present and
// absent keys, over uniform digests and over skewed ones (crowded at a
// bucket's ends or sharing long prefixes), where the starting guess is far
// from the key.
func TestIndexFind(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	shapes := map[string]func() spKey{
		"uniform": func() spKey {
			var k spKey
			for i := range k {
				k[i] = byte(rng.Uint32())
			}
			return k
		},
		"crowded low": func() spKey {
			var k spKey
			k[0] = byte(rng.IntN(3))
			k[1], k[2] = 0, byte(rng.IntN(4))
			for i := 3; i < len(k); i++ {
				k[i] = byte(rng.Uint32())
			}
			return k
		},
		"crowded high": func() spKey {
			var k spKey
			k[0] = 0x80
			k[1], k[2], k[3], k[4] = 0xff, 0xff, 0xff, byte(rng.IntN(2))
			for i := 5; i < len(k); i++ {
				k[i] = byte(rng.IntN(3))
			}
			return k
		},
	}
	for name, next := range shapes {
		t.Run(name, func(t *testing.T) {
			for _, n := range []int{0, 1, 9, 300, 5000} {
				var keys []spKey
				for range n {
					keys = append(keys, next())
				}
				slices.SortFunc(keys, func(a, b spKey) int { return bytes.Compare(a[:], b[:]) })
				keys = slices.Compact(keys)
				x := spIndexOfKeys(keys)
				for i, k := range keys {
					if j, ok := x.find(k); !ok || j != i {
						t.Fatalf("%d keys: find(key %d) = %d, %v", len(keys), i, j, ok)
					}
					// Neighbours that are not keys: one more and one less
					// in the last byte.
					for _, d := range []int{-1, 1} {
						m := k
						m[spKeySize-1] = byte(int(m[spKeySize-1]) + d)
						_, want := slices.BinarySearchFunc(keys, m, func(a, b spKey) int { return bytes.Compare(a[:], b[:]) })
						if j, ok := x.find(m); ok != want || ok && keys[j] != m {
							t.Fatalf("%d keys: find(neighbour of key %d) = %d, %v; want found %v", len(keys), i, j, ok, want)
						}
					}
				}
				for range 200 {
					m := next()
					_, want := slices.BinarySearchFunc(keys, m, func(a, b spKey) int { return bytes.Compare(a[:], b[:]) })
					if j, ok := x.find(m); ok != want || ok && keys[j] != m {
						t.Fatalf("%d keys: find(random) = %d, %v; want found %v", len(keys), j, ok, want)
					}
				}
			}
		})
	}
}
