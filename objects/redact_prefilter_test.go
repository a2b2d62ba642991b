package objects

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// redactBlobReference is RedactBlob without its prefilters: every regexp
// runs and every label goes through classifyName. RedactBlob must give
// the same bytes.
func redactBlobReference(b []byte) []byte {
	if !utf8.Valid(b) {
		return b
	}
	out := pemBlock().ReplaceAllLiteral(b, []byte("[REDACTED PRIVATE KEY]"))
	out = tokenShape().ReplaceAllFunc(out, func(m []byte) []byte {
		if !tokenShapeBody(m) {
			return m
		}
		return []byte(Redacted)
	})
	return redactAssignmentsBy(redactURLCredentials(out), func(l []byte) secrecy { return classifyName(string(l)) })
}

// labelVariants spells a normalised key name the ways text writes it.
func labelVariants(n string) []string {
	camel := func(s string) string {
		parts := strings.Split(s, "_")
		for i := 1; i < len(parts); i++ {
			if parts[i] != "" {
				parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
			}
		}
		return strings.Join(parts, "")
	}
	vs := []string{n, strings.ToUpper(n), camel(n), strings.ReplaceAll(n, "_", "-"), n + "s", n + "S",
		"my_" + n, "X" + camel(n), "OPENAI" + strings.ToUpper(strings.ReplaceAll(n, "_", "")), n + "_x", n + "1", "a." + n}
	return vs
}

func TestLabelMayBeSecretCoversClassifyName(t *testing.T) {
	var labels []string
	for n := range credentialNames {
		labels = append(labels, labelVariants(n)...)
	}
	for _, s := range secretSuffixes {
		labels = append(labels, labelVariants("x"+s)...)
		labels = append(labels, labelVariants(strings.TrimPrefix(s, "_"))...)
	}
	labels = append(labels, labelVariants("token")...)
	labels = append(labels, labelVariants("csrf_token")...)
	// Random labels over the letters the names are made of.
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "aeiknorstwdcpyhlgx_-.0AKT"
	for range 200000 {
		var sb strings.Builder
		for range 1 + rng.IntN(14) {
			sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		labels = append(labels, sb.String())
	}
	secrets := 0
	for _, l := range labels {
		if classifyName(l) == notSecret {
			continue
		}
		secrets++
		if !labelMayBeSecret([]byte(l)) {
			t.Errorf("labelMayBeSecret(%q) = false, but classifyName calls it %d", l, classifyName(l))
		}
	}
	if secrets < 500 {
		t.Fatalf("only %d secret labels generated: the test checks too little", secrets)
	}
	// The common keys of event JSON are ruled out without classifyName.
	for _, l := range []string{"kind", "seq", "run", "tool", "tokens", "in", "out", "cost_usd", "args", "output", "max_tokens2"} {
		if labelMayBeSecret([]byte(l)) {
			t.Errorf("labelMayBeSecret(%q) = true", l)
		}
	}
}

// mayHoldTokenReference is one substring search per literal.
func mayHoldTokenReference(b []byte) bool {
	for _, lit := range tokenLiterals {
		if bytes.Contains(b, lit) {
			return true
		}
	}
	return false
}

func TestMayHoldTokenMatchesLiterals(t *testing.T) {
	var frags []string
	for _, l := range tokenLiterals {
		s := string(l)
		frags = append(frags, s, s[:len(s)-1], s[1:])
	}
	frags = append(frags, "a", " ", "_", "-", "A", "J", "e", "y", "k", "s")
	rng := rand.New(rand.NewPCG(3, 4))
	hits := 0
	for range 100000 {
		var sb strings.Builder
		for range rng.IntN(8) {
			sb.WriteString(frags[rng.IntN(len(frags))])
		}
		b := []byte(sb.String())
		want := mayHoldTokenReference(b)
		if got := mayHoldToken(b); got != want {
			t.Fatalf("mayHoldToken(%q) = %v, want %v", b, got, want)
		}
		if want {
			hits++
		}
	}
	if hits < 1000 {
		t.Fatalf("only %d inputs held a literal", hits)
	}
}

// blobFragments build texts that exercise every RedactBlob rule.
var blobFragments = []string{
	"api_key=", "apiKey: ", `"password": `, "token=", "Token:", "max_tokens=", "AUTHORIZATION: Bearer ",
	"sk-proj-0123456789abcdefABCDEF", "ghp_0123456789abcdefghij0123456789ab", "AKIA0123456789ABCDEF",
	"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.Sf1KSf1KSf1KSf1KSf1K", "xoxb-0123456789-abc",
	"postgres://app:hunter2@db/main", "https://x@y", "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n",
	"-----END RSA PRIVATE KEY-----", "12", "true", "null", "{", "[", `"`, "'", `\"`, "\n", " ", ",", ";",
	"=", ":", ":=", "=>", "a", "kind", "tokens", "_", "-", "é", "[REDACTED]", "dsn=", "x-amz-security-token: ",
}

// randomBlobText joins n random fragments.
func randomBlobText(rng *rand.Rand, n int) []byte {
	var sb strings.Builder
	for range n {
		sb.WriteString(blobFragments[rng.IntN(len(blobFragments))])
	}
	return []byte(sb.String())
}

func TestRedactBlobPrefiltersExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	changed := 0
	for i := range 50000 {
		in := randomBlobText(rng, 1+rng.IntN(12))
		if i%10 == 0 {
			in = append(benchEventText(i), in...)
		}
		got, want := RedactBlob(in), redactBlobReference(in)
		if !bytes.Equal(got, want) {
			t.Fatalf("RedactBlob(%q)\n = %q\nwant %q", in, got, want)
		}
		if !bytes.Equal(got, in) {
			changed++
		}
	}
	if changed < 5000 {
		t.Fatalf("only %d inputs were scrubbed", changed)
	}
}

// FuzzRedactBlobPrefilters checks on arbitrary input that the prefilters
// never change what RedactBlob stores.
func FuzzRedactBlobPrefilters(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20 {
		f.Add(randomBlobText(rng, 6))
	}
	f.Add(benchEventText(1))
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := RedactBlob(in), redactBlobReference(in); !bytes.Equal(got, want) {
			t.Fatalf("RedactBlob(%q)\n = %q\nwant %q", in, got, want)
		}
	})
}

// TestRedactBlobSecretFreeJSONAllocatesNothing: scrubbing event JSON
// without a secret is the bulk write's common case, and allocated for
// every key before (classifyName's strings and the label's quote).
func TestRedactBlobSecretFreeJSONAllocatesNothing(t *testing.T) {
	in := benchEventText(3)
	if n := testing.AllocsPerRun(100, func() { RedactBlob(in) }); n != 0 {
		t.Errorf("RedactBlob allocated %.0f times for secret-free JSON", n)
	}
}

func TestSepScanFindsEverySeparator(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 20000 {
		b := randomBlobText(rng, rng.IntN(10))
		s := sepScan{colon: sepUnknown, eq: sepUnknown}
		for i := 0; i <= len(b); i += 1 + rng.IntN(3) {
			want := bytes.IndexAny(b[i:], ":=")
			if want >= 0 {
				want += i
			}
			if got := s.next(b, i); got != want {
				t.Fatalf("next(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
	}
}
