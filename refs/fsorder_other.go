//go:build !linux

package refs

// metadataOrdered reports false: outside Linux the order of durable
// metadata changes is not known, so the renames are made durable before
// any reflog row is written.
func metadataOrdered(...string) bool { return false }
