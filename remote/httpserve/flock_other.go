//go:build !unix

package httpserve

// flockPath is a no-op where flock is missing: the server's own mutex
// still serializes its own updates, but two servers must not share one
// root there (README "Storage under --root").
func flockPath(string) (func(), error) { return func() {}, nil }
