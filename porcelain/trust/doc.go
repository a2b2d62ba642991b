// Package trust holds the trust workflows: .tine artifacts (export, view,
// import, conversion), attestations and their signing, evaluation scores,
// annotations, release candidates, the release policy, promotion and the
// promotions list. The release-policy types and their parser live together
// here (policy.go), beside the promotion that applies them.
//
// trust sits above porcelain/runs only; porcelain/gates and porcelain/demo
// import it, and internal/archtest keeps it from importing them or
// porcelain/loops. Nothing here prints or exits.
package trust
