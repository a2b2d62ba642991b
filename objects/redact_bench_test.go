package objects

import (
	"fmt"
	"strings"
	"testing"
)

// benchEventText is a ~1 KiB event file like bench/gendata's: JSON text
// with a dozen keys, a "tokens" counter object and no secret.
func benchEventText(i int) []byte {
	words := strings.Repeat("attest tool pass budget merge commit error fail pack build model line step ", 12)
	return fmt.Appendf(nil, `{"kind":"tool","seq":%d,"run":"run-%04d","tool":"write","tokens":{"in":%d,"out":%d},`+
		`"cost_usd":0.8464,"args":["a/token","the/fail","plan/object"],"output":%q}`, i, i%10000, 10000+i, 2000+i, words)
}

// BenchmarkRedactBlob scrubs ~1 KiB of secret-free JSON text, the bulk
// write's common case (hash-object -w scrubs every blob).
func BenchmarkRedactBlob(b *testing.B) {
	data := benchEventText(7)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		RedactBlob(data)
	}
}
