package gates

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
)

// digestParts summarises the parts of a digest input an evidence event
// records, so gate debug can say which part changed: the contract digest,
// and SHA-256 summaries of the checkout snapshot and of the watched files
// (path, presence and content hash of each, in order).
func digestParts(in gate.DigestInput) gateDigestParts {
	files := make([]objects.Value, 0, len(in.Files))
	for _, f := range in.Files {
		files = append(files, objects.Array(objects.String(f.Path), objects.Bool(f.Present), objects.String(f.SHA256), objects.String(f.Err)))
	}
	b, err := objects.CanonV3(objects.Array(files...))
	fd := ""
	if err == nil {
		fd = sumHex(b)
	}
	return gateDigestParts{contract: in.ContractDigest, checkout: sumHex(in.Checkout), files: fd, watched: len(in.Files)}
}

// sumHex is the hex SHA-256 of b: a cache-key summary, not an object id.
func sumHex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
