package s3client

// GetFrom lets the tests against a real server send a resumption's
// ranged, ETag-bound GetObject.
var GetFrom = (*Client).getFrom
