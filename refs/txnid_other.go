//go:build !linux

package refs

import (
	"crypto/rand"
	"io"
)

// txnRand is the default source of transaction ids.
var txnRand io.Reader = rand.Reader
