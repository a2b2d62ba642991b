// Package remote moves runs between repositories: one Transport interface
// and its implementations, selected by URL (Open): a path or file:// URL
// (another repository on disk, this package's file transport), OpenTine's
// HTTP protocol (http(s)://, `tine serve`) and S3-compatible storage
// (s3://bucket/prefix). The HTTP and S3 transports register themselves
// with Register from their own packages.
//
// What travels is plumbing.TransferClosure's set: the link closure of the
// wanted runs plus their associations (attestations and annotation
// chains), minus what the receiver holds, cut at a depth. Objects always
// move before refs, and every ref moves by compare-and-swap on its own, so
// a remote never names a missing object and a lost race is reported
// (ErrConflict), never overwritten. Where the other side chooses what a
// fetch receives (the HTTP server's walk), the client refuses any object
// outside that set (Scope, ErrNotAsked).
//
// remote/remotetest is the test suite every transport runs.
//
// The file transport stores nothing of its own: it opens the other
// repository with plumbing.Open and writes through its store (a
// plumbing.BulkWriter) and its ref transactions and locks, exactly as a
// tine command run there would.
package remote
