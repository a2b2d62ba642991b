package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdHTTP is the script command `http METHOD URL [BODY]`: one request with
// the bearer token $HTTP_BEARER (none when empty); it prints the status
// and the body on one line, for the endpoints tine's client never calls
// (search, audit/verify).
func cmdHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: http METHOD URL [BODY]")
	}
	var body io.Reader
	if len(args) == 3 {
		body = strings.NewReader(args[2])
	}
	req, err := http.NewRequest(args[0], args[1], body)
	if err != nil {
		ts.Fatalf("http: %v", err)
	}
	if tok := ts.Getenv("HTTP_BEARER"); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		ts.Fatalf("http: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Fprintf(ts.Stdout(), "%d %s\n", resp.StatusCode, b)
}

// cmdOIDCKey is the script command `oidckey DIR`: it makes a P-256 key,
// writing the public key set DIR/jwks.json (kid k1) and the private key
// DIR/key.der for mintjwt.
func cmdOIDCKey(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: oidckey DIR")
	}
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ts.Check(err)
	der, err := x509.MarshalECPrivateKey(k)
	ts.Check(err)
	raw, err := k.PublicKey.Bytes()
	ts.Check(err)
	b64 := base64.RawURLEncoding
	set, _ := json.Marshal(map[string]any{"keys": []any{map[string]string{"kty": "EC", "crv": "P-256", "kid": "k1",
		"x": b64.EncodeToString(raw[1:33]), "y": b64.EncodeToString(raw[33:])}}})
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Check(os.WriteFile(filepath.Join(dir, "jwks.json"), set, 0o644))
	ts.Check(os.WriteFile(filepath.Join(dir, "key.der"), der, 0o600))
}

// cmdMintJWT is the script command `mintjwt NAME DIR CLAIMS`: it signs the
// JSON object CLAIMS (exp added, five minutes ahead, unless given) as an
// ES256 JWT with DIR/key.der (kid k1) and sets NAME to the token.
func cmdMintJWT(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: mintjwt NAME DIR CLAIMS")
	}
	der, err := os.ReadFile(filepath.Join(ts.MkAbs(args[1]), "key.der"))
	ts.Check(err)
	k, err := x509.ParseECPrivateKey(der)
	ts.Check(err)
	var claims map[string]any
	ts.Check(json.Unmarshal([]byte(args[2]), &claims))
	if _, ok := claims["exp"]; !ok {
		claims["exp"] = time.Now().Add(5 * time.Minute).Unix()
	}
	hb, _ := json.Marshal(map[string]string{"alg": "ES256", "kid": "k1", "typ": "JWT"})
	cb, _ := json.Marshal(claims)
	b64 := base64.RawURLEncoding
	signed := b64.EncodeToString(hb) + "." + b64.EncodeToString(cb)
	d := sha256.Sum256([]byte(signed))
	r, s, err := ecdsa.Sign(rand.Reader, k, d[:])
	ts.Check(err)
	sig := append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	ts.Setenv(args[0], signed+"."+b64.EncodeToString(sig))
}

// cmdTamper is the script command `tamper FILE OLD NEW`: it replaces the
// first OLD in FILE with NEW, in place, as someone editing a log would.
func cmdTamper(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: tamper FILE OLD NEW")
	}
	p := ts.MkAbs(args[0])
	b, err := os.ReadFile(p)
	ts.Check(err)
	if !bytes.Contains(b, []byte(args[1])) {
		ts.Fatalf("tamper: %q not in %s", args[1], args[0])
	}
	ts.Check(os.WriteFile(p, bytes.Replace(b, []byte(args[1]), []byte(args[2]), 1), 0o600))
}

// cmdTear is the script command `tear FILE N`: it cuts the last N bytes
// of FILE, as a crash in the middle of an append would.
func cmdTear(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tear FILE N")
	}
	var n int
	if _, err := fmt.Sscan(args[1], &n); err != nil {
		ts.Fatalf("tear: bad N %q", args[1])
	}
	p := ts.MkAbs(args[0])
	b, err := os.ReadFile(p)
	ts.Check(err)
	if n > len(b) {
		ts.Fatalf("tear: %s has only %d bytes", args[0], len(b))
	}
	ts.Check(os.WriteFile(p, b[:len(b)-n], 0o600))
}
