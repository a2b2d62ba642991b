package objects

import (
	"strings"
	"testing"
)

// FuzzVerify feeds arbitrary JSON through the block and verify path of both
// families. Verification must never panic, and its verdict must keep the
// fail-closed invariants: OK exactly for the two verified states, always a
// reason, and a verified verdict names the key that decided it.
func FuzzVerify(f *testing.F) {
	f.Add([]byte(strings.TrimSuffix(sigPayload, "}") + `,"signature":{"alg":"hmac-sha256","key_id":"demo-key","scheme":"tine-attest/1","signed_at":"2026-09-05T00:00:00Z","signer":"release-bot","value":"` + sigValueA + `"}}`))
	f.Add([]byte(`{"signature":{"alg":"ed25519","scheme":"tine-attest/1","public_key":"` + edPubHex + `","value":"` + strings.Repeat("00", 64) + `"}}`))
	f.Add([]byte(`{"metadata":{"integrity":{"signature":{"alg":"hmac-sha256","scheme":"tine-sig/1","value":"` + sigValueA + `"}}}}`))
	f.Add([]byte(`{"metadata":[1],"signature":null}`))
	f.Add([]byte(`[{"signature":7}]`))
	states := map[string]bool{StateVerified: true, StateVerifiedTOFU: true, StateUnsigned: false, StateNoKey: false, StateMismatch: false, StateError: false}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := ParseJSON(data, ParseOptions{AllowNonFinite: true, AllowLoneSurrogates: true, MaxIntDigits: 4096})
		if err != nil {
			return
		}
		for _, fam := range []Family{FamilyAttestation, FamilyArtifact} {
			for _, opt := range []VerifyOptions{{}, {HMACKey: []byte(keyA), TrustEmbedded: true}, {HMACKey: []byte("short"), PublicKey: []byte(edPubHex)}} {
				v := Verify(fam, doc, opt)
				ok, known := states[v.State]
				if !known || ok != v.OK || v.Reason == "" {
					t.Fatalf("%s verdict breaks the invariants: %+v", fam, v)
				}
				if v.OK != (v.Fingerprint != "") {
					t.Fatalf("verified verdict without its key fingerprint (or the reverse): %+v", v)
				}
			}
		}
	})
}
