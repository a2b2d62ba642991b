package objects

import (
	"errors"
	"fmt"
)

// Refusals of the .tine artifact writer. Each is wrapped with the detail;
// test with errors.Is.
var (
	// ErrArtifactIntegrity reports a document whose integrity digest does
	// not verify: it changed after it was written, so a signature would
	// vouch for content nobody can account for.
	ErrArtifactIntegrity = errors.New(".tine integrity check failed")
	// ErrArtifactNotSignable reports a document the writer refuses to sign
	// (SPEC §4.7): a draft checkpoint, a run that is not completed or
	// failed, or a format_version 1 file.
	ErrArtifactNotSignable = errors.New(".tine artifact cannot be signed")
	// ErrArtifactSigned reports a document that already carries a
	// signature block; signing again would hide the first signer.
	ErrArtifactSigned = errors.New(".tine artifact is already signed")
)

// ArtifactSignRequest says how SignArtifact signs.
type ArtifactSignRequest struct {
	// Key signs; its algorithm is the block's alg.
	Key *SigningKey
	// KeyID, Signer and SignedAt are the optional header labels; nil ones
	// are signed as null and left out of the stored block (SPEC §4.1).
	KeyID, Signer, SignedAt *string
}

// SignedArtifact is what SignArtifact produces.
type SignedArtifact struct {
	// Doc is the signed document; Bytes its file form (EncodeArtifact).
	Doc   Value
	Bytes []byte
	// Block is the tine-sig/2 block stored at metadata.integrity.signature.
	Block SigBlock
	// RunID names the run; Digest is the integrity digest of Doc.
	RunID, Digest string
	// Redacted counts the secret values the writer's redaction replaced
	// (SPEC §1.7); when it is not zero the digest was recomputed.
	Redacted int
}

// SignArtifact signs a parsed .tine document under tine-sig/2 as
// OpenTine's writer does (SPEC §3.5, §4.4, §4.7), and returns the signed
// document and its bytes.
//
// It refuses, before signing anything: a document DecodeArtifact refuses;
// a format_version 1 file (its in-memory migration is not what OpenTine
// would write, so it could not be byte-identical); a failed integrity check
// (ErrArtifactIntegrity); a draft or a run whose status is not completed
// or failed (ErrArtifactNotSignable); a document that already holds a
// signature block (ErrArtifactSigned).
//
// Then, as the reference writer does on save: the whole document is
// redacted (SPEC §1.7, redaction before hashing), metadata.autosave (a
// draft-only key) is dropped, metadata.integrity is rebuilt as
// {algorithm, digest} over the result, and the block is computed over
// that document and placed at metadata.integrity.signature. Nothing else
// changes, so for an artifact in the form OpenTine writes the bytes are
// the ones `opentine sign` writes for the same key and labels. The output
// is read back before it is returned: it must parse under the reader's
// rules, pass its integrity check and verify under the signing key.
func SignArtifact(doc Value, req ArtifactSignRequest) (*SignedArtifact, error) {
	if req.Key == nil {
		return nil, fmt.Errorf("%w: no signing key", ErrBadKey)
	}
	a, err := DecodeArtifact(doc)
	if err != nil {
		return nil, err
	}
	if err := signable(a); err != nil {
		return nil, err
	}
	red, n := RedactValue(doc)
	md, _ := red.Get("metadata")
	md = without(without(md, "autosave"), "integrity")
	digest, err := IntegrityDigest(red)
	if err != nil {
		return nil, err
	}
	integrity := ObjectValue(Member{Key: "algorithm", Value: String(IntegrityAlgorithm)}, Member{Key: "digest", Value: String(digest)})
	unsigned := withMember(red, "metadata", withMember(md, "integrity", integrity))
	block, err := SignDocument(unsigned, SignRequest{Scheme: SchemeSigV2, Key: req.Key, KeyID: req.KeyID, Signer: req.Signer, SignedAt: req.SignedAt})
	if err != nil {
		return nil, err
	}
	integrity = withMember(integrity, "signature", block.ToValue())
	signed := withMember(unsigned, "metadata", withMember(md, "integrity", integrity))
	b, err := EncodeArtifact(signed)
	if err != nil {
		return nil, err
	}
	if err := checkSigned(b, req.Key); err != nil {
		return nil, err
	}
	return &SignedArtifact{Doc: signed, Bytes: b, Block: block, RunID: a.RunID, Digest: digest, Redacted: n}, nil
}

// signable applies the writer's refusals to a decoded document.
func signable(a *Artifact) error {
	if a.Version != ArtifactFormatVersion {
		return fmt.Errorf("%w: it is format_version %d; tine signs format_version %d files only", ErrArtifactNotSignable, a.Version, ArtifactFormatVersion)
	}
	if integ := VerifyIntegrity(a.Original); !integ.OK {
		return fmt.Errorf("%w: %s", ErrArtifactIntegrity, integ.Reason)
	}
	if a.Draft {
		return fmt.Errorf("%w: it is a draft (autosave checkpoint), not a finished run", ErrArtifactNotSignable)
	}
	if a.Status != "completed" && a.Status != "failed" {
		return fmt.Errorf("%w: its status is %s; only a completed or failed run is signed", ErrArtifactNotSignable, a.Status)
	}
	if integrity, ok := artifactIntegrityBlock(a.Original); ok {
		if s, ok := integrity.Get("signature"); ok && s.Kind != KindNull {
			by := ""
			if v := VerifyArtifact(a.Original, VerifyOptions{}); v.Signer != nil {
				by = fmt.Sprintf(" by %q", *v.Signer)
			}
			return fmt.Errorf("%w%s; signing again would hide the first signature", ErrArtifactSigned, by)
		}
	}
	return nil
}

// checkSigned reads the written bytes back as any reader would: they must
// parse, carry a good integrity digest and verify under key.
func checkSigned(b []byte, key *SigningKey) error {
	doc, err := ParseArtifact(b)
	if err != nil {
		return fmt.Errorf("signed .tine does not read back: %w", err)
	}
	if integ := VerifyIntegrity(doc); !integ.OK {
		return fmt.Errorf("signed .tine does not read back: integrity %s", integ.Reason)
	}
	opt := VerifyOptions{PublicKey: key.PublicKey()}
	if key.priv == nil {
		opt = VerifyOptions{HMACKey: key.hmac}
	}
	if v := VerifyArtifact(doc, opt); !v.OK {
		return fmt.Errorf("signed .tine does not verify: %s", v.Reason)
	}
	return nil
}
