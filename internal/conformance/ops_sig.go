package conformance

import (
	"encoding/hex"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// The signature ops (SPEC Part 4): the exact signed message, the verdict,
// and the attestation writer.
func init() {
	register("sig.message", opSigMessage)
	register("sig.verify", opSigVerify)
	register("attest.sign", opAttestSign)
}

// suiteKeys are the suite's named keys (conformance keys.json), as hex.
// Vectors name keys, never carry them; the values are published test
// constants, and TestSuiteKeysMatchKeysJSON holds them to the copied file.
var suiteKeys = map[string]string{
	"ed25519_seed": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
	"hmac_a":       "3031323334353637383961626364656630313233343536373839616263646566",
	"hmac_b":       "6665646362613938373635343332313066656463626139383736353433323130",
	"hmac_compat":  "636f6d7061742d676f6c64656e2d7369676e696e672d6b65792d303030303031",
	"hmac_floor":   "30313233343536373839616263646566",
	"hmac_short":   "303132333435363738396162636465",
}

// suiteKey returns the bytes of the named suite key; an unknown name is a
// malformed request, not a format fault.
func suiteKey(name string) ([]byte, error) {
	h, ok := suiteKeys[name]
	if !ok {
		return nil, fmt.Errorf("%w: unknown suite key %q", errArgs, name)
	}
	return hex.DecodeString(h)
}

// opSigMessage answers {message_b64} for input {document, header}, plus
// the HMAC value when args name a key. The view follows args.scheme (the
// header's scheme when absent); the five-key header is rebuilt from the
// given one, absent keys null.
func opSigMessage(h *Handler, in Input, args opArgs) (map[string]any, error) {
	v, err := in.value()
	if err != nil {
		return nil, err
	}
	doc, ok := v.Get("document")
	if !ok {
		return nil, fmt.Errorf("%w: sig.message input needs a document", errArgs)
	}
	hv, _ := v.Get("header")
	hdr, err := headerFromValue(hv)
	if err != nil {
		return nil, err
	}
	scheme := hdr.Scheme
	if args.Scheme != nil {
		scheme = *args.Scheme
	}
	msg, err := objects.SigMessage(scheme, doc, hdr)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"message_b64": b64(msg)}
	if args.Key != nil {
		raw, err := suiteKey(*args.Key)
		if err != nil {
			return nil, err
		}
		k, err := objects.NewHMACSigningKey(raw)
		if err != nil {
			return nil, err
		}
		out["value"] = k.SignMessage(msg)
	}
	return out, nil
}

// headerFromValue reads sig.message's header object. Every member must be
// a string or null; alg and scheme absent or null are signed as null.
func headerFromValue(hv objects.Value) (objects.SigHeader, error) {
	var h objects.SigHeader
	if hv.Kind != objects.KindObject {
		return h, fmt.Errorf("%w: sig.message header must be an object", errArgs)
	}
	str := func(key string) (*string, error) {
		m, ok := hv.Get(key)
		if !ok || m.Kind == objects.KindNull {
			return nil, nil
		}
		if m.Kind != objects.KindString {
			return nil, fmt.Errorf("%w: header %s is a JSON %s", errArgs, key, m.Kind)
		}
		s := m.Str
		return &s, nil
	}
	var err error
	var alg, scheme *string
	if alg, err = str("alg"); err != nil {
		return h, err
	}
	if scheme, err = str("scheme"); err != nil {
		return h, err
	}
	if h.KeyID, err = str("key_id"); err != nil {
		return h, err
	}
	if h.SignedAt, err = str("signed_at"); err != nil {
		return h, err
	}
	if h.Signer, err = str("signer"); err != nil {
		return h, err
	}
	if alg != nil {
		h.Alg = *alg
	}
	if scheme != nil {
		h.Scheme = *scheme
	}
	return h, nil
}

// opSigVerify returns the verdict, whatever it is: a verdict is an accepted
// answer (SPEC §4.6). Bytes are a .tine file (the compat cases), read by the
// artifact reader; its refusal is the op's.
func opSigVerify(h *Handler, in Input, args opArgs) (map[string]any, error) {
	var doc objects.Value
	var err error
	if in.Kind == InputBytes {
		doc, err = objects.ParseArtifact(in.Bytes)
	} else {
		doc, err = in.value()
	}
	if err != nil {
		return nil, err
	}
	family := objects.FamilyAttestation
	if args.Family != nil {
		family = objects.Family(*args.Family)
	}
	var opt objects.VerifyOptions
	if args.Key != nil {
		if opt.HMACKey, err = suiteKey(*args.Key); err != nil {
			return nil, err
		}
	}
	if args.PublicKey != nil {
		opt.PublicKey = []byte(*args.PublicKey)
	}
	opt.TrustEmbedded = args.TrustEmbedded != nil && *args.TrustEmbedded
	vd := objects.Verify(family, doc, opt)
	return map[string]any{
		"ok": vd.OK, "state": vd.State, "reason": vd.Reason,
		"algorithm": nullable(vd.Algorithm), "key_id": nullable(vd.KeyID),
		"signer": nullable(vd.Signer), "signed_at": nullable(vd.SignedAt),
	}, nil
}

// nullable is a verdict label as a JSON value: null when absent.
func nullable(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// opAttestSign is the attestation writer: redact, sign with tine-attest/1,
// store. The new object's links must resolve in the store the args give
// (the target run), as a repository put requires.
func opAttestSign(h *Handler, in Input, args opArgs) (map[string]any, error) {
	payload, err := in.value()
	if err != nil {
		return nil, err
	}
	if args.Key == nil {
		return nil, fmt.Errorf("%w: attest.sign needs a key", errArgs)
	}
	raw, err := suiteKey(*args.Key)
	if err != nil {
		return nil, err
	}
	alg := objects.AlgHMACSHA256
	if args.Algorithm != nil {
		alg = *args.Algorithm
	}
	var key *objects.SigningKey
	switch alg {
	case objects.AlgHMACSHA256:
		key, err = objects.NewHMACSigningKey(raw)
	case objects.AlgEd25519:
		key, err = objects.NewEd25519SigningKey(raw)
	default:
		err = fmt.Errorf("%w: %q", objects.ErrUnsupportedAlgorithm, alg)
	}
	if err != nil {
		return nil, err
	}
	o, block, err := objects.AttestSign(h.Algo, payload, objects.AttestSignRequest{Key: key, KeyID: args.KeyID, SignedAt: args.SignedAt})
	if err != nil {
		return nil, err
	}
	repo, err := newArgsRepo(h.Algo, args)
	if err != nil {
		return nil, err
	}
	if checksExistence(args) {
		_, err = objects.Validate(o, repo)
	} else {
		_, err = objects.Links(o)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"oid": o.ID.String(), "body_b64": b64(o.Body), "signature": blockMap(block)}, nil
}

// blockMap is the stored block as protocol output: null labels dropped.
func blockMap(b objects.SigBlock) map[string]any {
	m := map[string]any{"alg": b.Alg, "scheme": b.Scheme, "value": b.Value}
	for k, v := range map[string]*string{"key_id": b.KeyID, "signer": b.Signer, "signed_at": b.SignedAt} {
		if v != nil {
			m[k] = *v
		}
	}
	if b.PublicKey != "" {
		m["public_key"] = b.PublicKey
	}
	return m
}
