// Package wire holds what both ends of OpenTine's remote HTTP protocol
// (opentine-remote/1) agree on: the object-format names advertised in the
// capabilities document, the tenant-name rule, the JSON budgets and bounds,
// and the header and content-type names. The server (remote/httpserve) and
// the client (remote/httpclient) import it so the two cannot drift apart.
//
// It also owns tine's extension of the protocol between tine peers (the
// capabilities' tine field, larger manifest counts) and the extension's
// binary frame, whose format frame.go describes: WriteFrame builds one and
// ReadFrame verifies one before anything of it may be stored.
package wire
