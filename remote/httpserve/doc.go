// Package httpserve is `tine serve`: an OpenTine remote (opentine-remote/1)
// serving one tine repository per tenant over HTTP, with a static bearer
// token and optionally OIDC tokens (RS256/ES256 JWTs), roles, ref
// compare-and-swap, TINEPACK3 fetches, resumable uploads, object search and
// an audit log of every request.
//
// It owns these files under Config.Root (README "Storage under --root"):
//
//	tenants/<t>/.tine        tenant t's repository (plumbing's layout)
//	uploads/<t>/<id>.part    bytes of a resumable upload received so far
//	uploads/<t>/<id>.json    {"offset","owner","sha256","size"} of it
//	search/<t>/<type|all>    "tine-search-journal 1\n", then the 1,000 oids
//	                         most recently received, newest first
//	audit/key                64 hex digits: the HMAC-SHA256 key, mode 0600
//	audit/log                one JSON row per request, each row's "mac"
//	                         chained to the one before by "prev"
//	audit/log.<seq>          a closed segment ending at row seq
//	audit/head               {"auth","first","mac","seq"}: the seq of
//	                         audit/log's first row, the mac and seq of the
//	                         last row, authenticated under the key
//	audit/lock, search/<t>/lock   flock'd by the processes sharing Root
package httpserve
