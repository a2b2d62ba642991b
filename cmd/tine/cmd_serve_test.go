package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/remote/httpserve"
)

// selfSigned writes a certificate for 127.0.0.1 and its key as PEM files.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tine test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// TestServeTLSAndShutdown serves https with --cert/--key material, answers
// a request over TLS 1.2 or later, refuses TLS 1.1, and returns cleanly
// when its context ends (as on SIGINT or SIGTERM).
func TestServeTLSAndShutdown(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile := selfSigned(t, dir)
	srv, err := httpserve.New(httpserve.Config{Root: filepath.Join(dir, "srv"), Tenant: "acme",
		Token: []byte("tls-token-0123456789abcdef"), Role: httpserve.RoleReader})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveUntilSignal(ctx, srv.HTTPServer(""), ln, certFile, keyFile) }()
	url := "https://" + ln.Addr().String() + "/v1/capabilities"
	get := func(cfg *tls.Config) (*http.Response, error) {
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}, Timeout: time.Minute}
		return c.Get(url)
	}
	resp, err := get(&tls.Config{InsecureSkipVerify: true}) // the test's own self-signed certificate
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"object_format":"tine-v3-blake3"`) || resp.TLS == nil {
		t.Fatalf("https capabilities = %d %s", resp.StatusCode, body)
	}
	if _, err := get(&tls.Config{InsecureSkipVerify: true, MaxVersion: tls.VersionTLS11}); err == nil {
		t.Error("a TLS 1.1 client was served")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("shutdown: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the server did not stop")
	}
}

func TestServeRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		code int
		want string
	}{
		{[]string{"serve", "--root", "x", "--addr", "0.0.0.0:0"}, "tls-token-0123456789abcdef", 1, "plain http only on a loopback address"},
		{[]string{"serve", "--root", "x", "--addr", "127.0.0.1:0"}, "short", 1, "at least 16 bytes"},
		{[]string{"serve", "--root", "x", "--cert", "a.crt"}, "tls-token-0123456789abcdef", 2, "--cert and --key go together"},
		{[]string{"serve", "--root", "x", "--role", "owner"}, "tls-token-0123456789abcdef", 2, "--role"},
		{[]string{"serve", "--root", "x", "--tenant", "Bad"}, "tls-token-0123456789abcdef", 1, "invalid tenant name"},
	} {
		t.Setenv("TINE_REMOTE_TOKEN", c.env)
		code, _, errs := tineRun(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("tine %s: exit %d %q, want %d and %q", strings.Join(c.args, " "), code, errs, c.code, c.want)
		}
	}
}
