// Package httplimit holds the bounds every HTTP client of tine puts on a
// reply it reads, whichever layer it sits in: the remote transports
// (remote/httpclient, the S3 client, tine serve's fetch of an OIDC key set)
// and the model clients of internal/llm.
package httplimit

// MaxReplyHeader bounds the header block (status line and fields) of a
// reply a tine HTTP client reads: each client's transport sets it as
// MaxResponseHeaderBytes. net/http's default is 1 MiB.
//
// The replies tine reads carry a handful of fields: tine serve's fit in
// well under 1 KiB, S3's in about 2 KiB (its user metadata is limited to
// 2 KB, and tine sets none), a key set's in a few hundred bytes, a model
// provider's in one or two KiB (rate-limit and request-id fields); a
// proxy or CDN in front adds cookies and tracing fields. The usual front
// ends refuse far smaller blocks themselves (nginx reads an upstream's
// header into one 4 or 8 KiB buffer by default, Node's parser stops at
// 16 KiB), so 64 KiB leaves a wide margin for a working server, while a
// hostile one can make tine read and hold at most 64 KiB a request, not
// 1 MiB.
const MaxReplyHeader = 64 << 10
