package wire

import (
	"fmt"
	"unicode/utf8"

	"github.com/tinehq/tine/internal/textsafe"
)

// Why a request was forbidden, for a tine client. OpenTine's 403 body is
// the fixed {"error":"forbidden"} (spec §2), which cannot tell a token
// whose role lacks the right from a release policy that refused the run.
// A request carrying HeaderTine (a client that read the extension in the
// capabilities) gets the same body with two more keys:
//
//	{"error":"forbidden","message":"<one line>","reason":"<RefusalRole|…>"}
//
// Every other request, and every request to a server hiding the extension,
// gets the fixed body, so OpenTine's clients and servers see the protocol
// unchanged; an older tine serve ignores the header on these requests, and
// its bare 403 is reported as ambiguous as it is.
const (
	// RefusalRole: the identity's role does not allow the action (a
	// reader uploading, a writer moving promotions/* without
	// --writer-promotes).
	RefusalRole = "role"
	// RefusalTenant: the identity belongs to another tenant than the URL's.
	RefusalTenant = "tenant"
	// RefusalOwner: the resumable upload was declared by another identity.
	RefusalOwner = "owner"
	// RefusalPolicy: the server's ref guard (the tenant's release policy
	// for promotions/*) refused the ref update.
	RefusalPolicy = "policy"
)

// MaxRefusalMessage bounds a refusal's message, in bytes.
const MaxRefusalMessage = 1024

// maxRefusalReason bounds a refusal's reason, in bytes.
const maxRefusalReason = 32

// CheckRefusal reports whether reason and message are a refusal a client
// may show: reason 1 to 32 of [a-z0-9.-], message one line of printable
// UTF-8 (no control or format characters) of 1 to MaxRefusalMessage bytes
// (CheckReplyText). A reason this tine does not know passes: a newer
// server may say more.
func CheckRefusal(reason, message string) error {
	if reason == "" || len(reason) > maxRefusalReason {
		return fmt.Errorf("refusal reason of %d bytes, want 1 to %d", len(reason), maxRefusalReason)
	}
	for i := 0; i < len(reason); i++ {
		if c := reason[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return fmt.Errorf("refusal reason %.40q: want [a-z0-9.-]", reason)
		}
	}
	if err := CheckReplyText(message); err != nil {
		return fmt.Errorf("refusal message: %w", err)
	}
	return nil
}

// CheckReplyText reports whether s, text a server sent (an error reply's
// "error", a refusal's message, a redirect's Location), may be shown to a
// user: one line of printable UTF-8, no control or format characters
// (nothing that drives a terminal or reorders the line), 1 to
// MaxRefusalMessage bytes. A client shows what fails it as if the server
// had sent nothing.
func CheckReplyText(s string) error {
	if s == "" || len(s) > MaxRefusalMessage {
		return fmt.Errorf("text of %d bytes, want 1 to %d", len(s), MaxRefusalMessage)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("text is not UTF-8")
	}
	for _, r := range s {
		if textsafe.Unshowable(r) {
			return fmt.Errorf("text holds control or format character %U", r)
		}
	}
	return nil
}
