package objects

import (
	"math"
	"math/big"
	"testing"
)

// TestEqual: member order does not matter, int and float never equal,
// big integers compare by value, NaN equals itself.
func TestEqual(t *testing.T) {
	big1 := new(big.Int).Lsh(big.NewInt(1), 70)
	big2 := new(big.Int).Lsh(big.NewInt(1), 70)
	cases := []struct {
		a, b Value
		want bool
	}{
		{ObjectValue(Member{"a", Int(1)}, Member{"b", String("x")}), ObjectValue(Member{"b", String("x")}, Member{"a", Int(1)}), true},
		{ObjectValue(Member{"a", Int(1)}), ObjectValue(Member{"a", Int(2)}), false},
		{ObjectValue(Member{"a", Int(1)}), ObjectValue(Member{"b", Int(1)}), false},
		{Int(1), Float(1), false},
		{BigInt(big1), BigInt(big2), true},
		{BigInt(big1), Int(1), false},
		{Float(math.NaN()), Float(math.NaN()), true},
		{Array(Int(1), Int(2)), Array(Int(2), Int(1)), false},
		{Array(Null(), Bool(true)), Array(Null(), Bool(true)), true},
		{String("a"), String("b"), false},
	}
	for i, c := range cases {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("case %d: Equal = %v, want %v", i, got, c.want)
		}
	}
}
