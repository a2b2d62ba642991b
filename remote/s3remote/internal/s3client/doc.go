// Package s3client is the small S3 client of the S3 remote: the handful
// of S3 operations tine uses (GetObject, HeadObject, PutObject with
// If-Match / If-None-Match, DeleteObject, ListObjectsV2, CreateBucket for
// the tests' server) over net/http, signed with AWS Signature Version 4
// (header authentication, static credentials), with the AWS SDK's
// standard retry rules. Every response it reads is bounded and every XML
// answer it cannot parse is refused. It knows nothing of tine.
package s3client
