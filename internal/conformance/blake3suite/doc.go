// Package blake3suite generates tine's conformance suite for the blake3
// object profile (testdata/conformance-blake3) from OpenTine's sha256 suite
// (testdata/conformance).
//
// The sha256 suite pins object ids, envelopes, refs, shallow files, packs
// and attestations to SHA-256. tine's default repositories hash with
// BLAKE3, so a second implementation needs the same vectors with every
// object id re-derived to prove it reads them. Generate rewrites the suite
// case by case:
//
//   - every object the suite spells out (an envelope in an input, an arg,
//     a pack manifest or an output; a body handed to oid.derive) is known
//     by its preimage, TYPE 0x00 decimal(schema) 0x00 body, and its
//     sha256 oid is replaced by BLAKE3 of the same preimage with every oid
//     inside the body replaced first;
//   - an oid whose preimage the suite never shows (a synthetic
//     blob:sha256:000…1 or a deliberately missing object) keeps its digest
//     and changes its profile name to blake3;
//   - TINEPACK3 frames are inflated, rewritten, re-deflated and re-headed
//     with the SHA-256 of the new manifest (a pack id is SHA-256 in both
//     profiles); attestation signatures are re-computed over the rewritten
//     body;
//   - every replacement is the same length ("sha256" and "blake3" are both
//     six letters), so each at/over bound stays at or over its bound.
//
// The expected outputs are then re-computed from the rewritten inputs
// without tine's object code (zeebo/blake3 over the preimage, crypto/sha256
// over manifests, crypto/hmac over signature messages) and must agree with
// the rewritten outputs, or generation fails. Cases whose answer does not
// depend on the object hash (text, canonical JSON, shape, metrics, ref
// names, .tine artifacts, signature messages and verdicts) are carried over
// unchanged. The 51-compat cases that load objects from OpenTine's sha256
// release repositories have no blake3 counterpart and are left out.
package blake3suite

//go:generate go test -run TestGeneratedSuiteIsCommitted -update
