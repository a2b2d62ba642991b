// Package httpclient is tine's client of OpenTine's remote HTTP protocol
// (opentine-remote/1): Client speaks the endpoints (capabilities, refs,
// compare-and-swap ref updates, fetch, resumable pack uploads with HEAD
// recovery), and the http:// and https:// remote.Transport built on it is
// registered with package remote.
//
// The client follows the reference client's safety rules: https, or plain
// http only to a literal loopback IP (http://localhost is refused: a name
// can resolve anywhere); no redirects; no proxy or netrc from the
// environment; no compression; a Content-Length on every request; control
// replies at most 1 MiB and 100,000 JSON tokens, pack replies at most
// 256 MiB. The bearer token is held in memory only.
//
// Against tine serve, which advertises tine's extension in its
// capabilities (wire.TineCaps), the client sends wire.HeaderTine on fetch
// and upload requests and reads and writes frames within the extension's
// larger counts, so runs of any size cross; against any other server it
// sends nothing more than the reference client and keeps the format's
// counts.
package httpclient
