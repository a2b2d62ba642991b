// Package trust holds the trust workflows: .tine artifacts (export, view,
// import, conversion), attestations and their signing, evaluation scores,
// annotations, release candidates, the release policy, promotion and the
// promotions list. The release-policy types and their parser live together
// here (policy.go), beside the promotion that applies them.
//
// trust sits above porcelain/runs only; porcelain/gates and porcelain/demo
// import it, and internal/archtest keeps it from importing them or
// porcelain/loops. Nothing here prints or exits.
//
// Promotions reads only refs and reflogs, through RefHistory. The verbs that
// resolve revisions, write objects through the validated write path or move
// refs (Attest, Annotate, Evaluate, Promote, ImportArtifact) keep
// *plumbing.Repo.
package trust
