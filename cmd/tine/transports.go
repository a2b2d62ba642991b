package main

// The transports that register themselves with package remote for their
// URL schemes (remote.Register): s3:// (S3-compatible storage).
import _ "github.com/tinehq/tine/remote/s3remote"
