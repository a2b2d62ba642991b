package httpserve

import (
	"fmt"
	"strings"

	"github.com/tinehq/tine/remote/wire"
)

// actionWords say, for a refusal's message, what each action does and
// which roles may take it (spec §3).
var actionWords = map[action]string{
	actReadRef:   "list refs (a reader, writer or admin token may)",
	actNegotiate: "negotiate (a reader, writer or admin token may)",
	actFetch:     "fetch (a reader, writer or admin token may)",
	actSearch:    "search (a reader, writer or admin token may)",
	actUpload:    "upload packs (a writer or admin token may)",
	actUpdateRef: "move refs (a writer or admin token may)",
	actAudit:     "verify the audit chain (an admin token may)",
}

// refusal is the 403 of act, which id may not take on tenant: id belongs
// to another tenant (wire.RefusalTenant), or its roles lack act
// (wire.RefusalRole). The message names only the caller's own identity.
func (id identity) refusal(act action, tenant string) *httpError {
	detail := fmt.Sprintf("%s on tenant %s", act, tenant)
	if id.tenant != tenant {
		return forbidden(wire.RefusalTenant, fmt.Sprintf("the token is for tenant %s, not %s", id.tenant, tenant), detail)
	}
	what, ok := actionWords[act]
	if !ok {
		what = string(act)
	}
	return forbidden(wire.RefusalRole, id.roleText()+" may not "+what, detail)
}

// roleText names id's roles as a refusal's subject: "the token's role
// (writer)", "the token's roles (reader, writer)", or "a token with no
// role".
func (id identity) roleText() string {
	switch len(id.roles) {
	case 0:
		return "a token with no role"
	case 1:
		return "the token's role (" + string(id.roles[0]) + ")"
	}
	names := make([]string, len(id.roles))
	for i, r := range id.roles {
		names[i] = string(r)
	}
	return "the token's roles (" + strings.Join(names, ", ") + ")"
}
