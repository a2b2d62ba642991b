package blake3suite

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/objects"
)

// resign re-computes an attest.sign case's signature over the rewritten
// body. The message is built by objects.SigMessage, which is
// hash-independent and held to OpenTine's message bytes by the sha256
// suite's sig.message vectors; the generator first checks that the HMAC of
// the sha256 body's message is the sha256 case's value, then MACs the
// blake3 body's message with crypto/hmac.
func (g *generator) resign(old, n map[string]any) error {
	args, _ := old["args"].(map[string]any)
	name, _ := args["key"].(string)
	if alg, _ := args["algorithm"].(string); alg != "" && alg != objects.AlgHMACSHA256 {
		return fmt.Errorf("%s: only HMAC attestations are re-signed", old["id"])
	}
	key, err := g.suiteKey(name)
	if err != nil {
		return err
	}
	oldOut, _ := old["output"].(map[string]any)
	oldBody, err := b64Field(old, oldOut["body_b64"])
	if err != nil {
		return err
	}
	sig, _ := oldOut["signature"].(map[string]any)
	oldValue, _ := sig["value"].(string)
	hdr := objects.SigHeader{Alg: fmt.Sprint(sig["alg"]), Scheme: fmt.Sprint(sig["scheme"]),
		KeyID: optString(sig["key_id"]), SignedAt: optString(sig["signed_at"]), Signer: optString(sig["signer"])}
	mac := func(body []byte) (string, error) {
		doc, err := objects.ParseJSON(body, objects.ParseOptions{})
		if err != nil {
			return "", err
		}
		msg, err := objects.SigMessage(hdr.Scheme, doc, hdr)
		if err != nil {
			return "", err
		}
		h := hmac.New(sha256.New, key)
		h.Write(msg)
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	if v, err := mac(oldBody); err != nil || v != oldValue {
		return fmt.Errorf("%s: the sha256 signature does not re-compute (%v)", old["id"], err)
	}
	body := g.rw.text(oldBody)
	value, err := mac(body)
	if err != nil {
		return err
	}
	body = bytes.Replace(body, []byte(oldValue), []byte(value), 1)
	out, _ := n["output"].(map[string]any)
	out["body_b64"] = base64.StdEncoding.EncodeToString(body)
	out["oid"] = hashPreimage("blake3", "attestation", "1", body)
	nsig, _ := out["signature"].(map[string]any)
	nsig["value"] = value
	return nil
}

func optString(v any) *string {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	return &s
}

func (g *generator) suiteKey(name string) ([]byte, error) {
	raw, err := os.ReadFile(filepath.Join(g.src, "keys.json"))
	if err != nil {
		return nil, err
	}
	var keys map[string]string
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, fmt.Errorf("keys.json: %w", err)
	}
	h, ok := keys[name]
	if !ok {
		return nil, fmt.Errorf("keys.json has no key %q", name)
	}
	return hex.DecodeString(h)
}
