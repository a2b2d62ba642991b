// Package s3client is the small S3 client of the S3 remote: the handful
// of S3 operations tine uses (GetObject, HeadObject, PutObject with
// If-Match / If-None-Match, DeleteObject, ListObjectsV2, CreateBucket for
// the tests' server) over net/http. It marshals the requests and reads
// the answers itself; the security- and protocol-critical parts are the
// AWS SDK's core (aws-sdk-go-v2): its Signature Version 4 signer
// (aws/signer/v4, header authentication with static aws.Credentials) and
// its standard retryer (aws/retry: which failures are retried, the
// jittered backoff, the retry token budget). Not the SDK's S3 client
// (service/s3), whose package initialisers every tine process would pay
// at start. Every response it reads is bounded and every XML answer it
// cannot parse is refused. It knows nothing of tine.
package s3client
