package objects

import (
	"bytes"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// spliceGen draws random run payloads and appends for the splice property.
type spliceGen struct {
	rng  *rand.Rand
	algo Algo
}

// texts mixes ASCII, escapes, controls, and characters around the UTF-16
// ordering trap (a supplementary character sorts before U+E000..U+FFFF).
var spliceTexts = []string{"", "a", "running", "é", "日本", "\U0001F600", "\uE000", "\uFFFD", "q\"uote", "back\\slash", "nl\n", "\x01ctl", "tab\t", "_blob", "z"}

func (g *spliceGen) text() string {
	s := spliceTexts[g.rng.IntN(len(spliceTexts))]
	if g.rng.IntN(3) == 0 {
		s += spliceTexts[g.rng.IntN(len(spliceTexts))]
	}
	return s
}

func (g *spliceGen) scalar() Value {
	switch g.rng.IntN(9) {
	case 0:
		return Null()
	case 1:
		return Bool(g.rng.IntN(2) == 0)
	case 2:
		return Int(g.rng.Int64N(1<<53) - 1<<52)
	case 3:
		return Int(maxSafeInt * int64(1-2*g.rng.IntN(2)))
	case 4:
		return Float([]float64{0.5, -1.25, 1e21, 1e-7, 123456.789, math.MaxFloat64, 5e-324}[g.rng.IntN(7)])
	case 5:
		return BigInt(new(big.Int).Lsh(big.NewInt(1), 40))
	default:
		return String(g.text())
	}
}

func (g *spliceGen) value(depth int) Value {
	if depth > 2 || g.rng.IntN(3) > 0 {
		return g.scalar()
	}
	if g.rng.IntN(2) == 0 {
		vs := make([]Value, g.rng.IntN(4))
		for i := range vs {
			vs[i] = g.value(depth + 1)
		}
		return Array(vs...)
	}
	return g.object(depth+1, g.rng.IntN(4))
}

func (g *spliceGen) object(depth, n int) Value {
	seen := map[string]bool{}
	var ms []Member
	for range n {
		k := g.text()
		if seen[k] {
			continue
		}
		seen[k] = true
		ms = append(ms, Member{Key: k, Value: g.value(depth)})
	}
	return ObjectValue(ms...)
}

func (g *spliceGen) oids(n int) []OID {
	ids := make([]OID, n)
	for i := range ids {
		ids[i] = OID{Type: TypeEvent, Algo: g.algo}
		for j := range ids[i].Digest {
			ids[i].Digest[j] = byte(g.rng.IntN(256))
		}
	}
	return ids
}

// runKeys are the members a run payload holds, and keys sorting around
// them.
var runKeys = []string{"created_at", "forked_from", "legacy_blob", "legacy_refs", "manifests", "metadata", "roots", "status", "tips", "title", "ä", "\U0001F600", "\uE000", "events_x", "event"}

// payload draws a base payload: random run members, events a list of n.
func (g *spliceGen) payload(events []OID) Value {
	ms := []Member{{Key: "events", Value: oidsValue(events)}}
	for _, k := range runKeys {
		if g.rng.IntN(2) == 0 {
			ms = append(ms, Member{Key: k, Value: g.value(1)})
		}
	}
	return ObjectValue(ms...)
}

// TestRunBodyAppendMatchesFull is the property behind the splice encoder:
// on random run payloads (unicode keys and text, escapes, big and safe
// integers, floats, nested members) and random appends (set members
// replacing, adding or holding unencodable values; dropped members),
// RunBody.Append gives exactly NewJSONObject's object, or fails with the
// same reason.
func TestRunBodyAppendMatchesFull(t *testing.T) {
	var same, failed int
	for seed := range uint64(4000) {
		g := &spliceGen{rng: rand.New(rand.NewPCG(seed, 7)), algo: []Algo{BLAKE3, SHA256}[seed%2]}
		baseEvents := g.oids(g.rng.IntN(20))
		pv := g.payload(baseEvents)
		switch g.rng.IntN(12) {
		case 0:
			pv = ObjectValue(pv.Object[1:]...) // no events member
			baseEvents = nil
		case 1:
			pv.Object[0].Value = Null() // a falsy events member
			baseEvents = nil
		}
		base, err := NewJSONObject(g.algo, TypeRun, 1, pv)
		if err != nil {
			t.Fatalf("seed %d: base: %v", seed, err)
		}
		added := g.oids(g.rng.IntN(4))
		var set []Member
		setKeys := map[string]bool{}
		for range g.rng.IntN(5) {
			k := runKeys[g.rng.IntN(len(runKeys))]
			if setKeys[k] {
				continue // callers set a key once; see TestRunBodyAppendRepeatedKey
			}
			setKeys[k] = true
			v := g.value(1)
			switch g.rng.IntN(12) {
			case 0:
				v = BigInt(new(big.Int).Lsh(big.NewInt(1), 60)) // beyond 2^53
			case 1:
				v = Float(math.Inf(1))
			case 2:
				v = String("\xed\xa0\x80") // a WTF-8 lone surrogate
			}
			set = append(set, Member{Key: k, Value: v})
		}
		drop := map[string]bool{}
		for _, k := range runKeys {
			if g.rng.IntN(6) == 0 {
				drop[k] = true
			}
		}
		all := append(append([]OID{}, baseEvents...), added...)
		full, ferr := NewJSONObject(g.algo, TypeRun, 1, deriveForTest(base.Value, append([]Member{{Key: "events", Value: oidsValue(all)}}, set...), drop))

		b, err := SplitRunBody(g.algo, base.Body)
		if err != nil {
			t.Fatalf("seed %d: split a canonical run body: %v", seed, err)
		}
		if b.Len() != len(baseEvents) {
			t.Fatalf("seed %d: split counts %d events, want %d", seed, b.Len(), len(baseEvents))
		}
		got, serr := b.Append(added, set, drop)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("seed %d: full encoder says %v, splice says %v", seed, ferr, serr)
		}
		if ferr != nil {
			fr, _ := ReasonOf(ferr)
			sr, _ := ReasonOf(serr)
			if fr != sr || errors.Is(ferr, ErrDuplicateMember) != errors.Is(serr, ErrDuplicateMember) {
				t.Fatalf("seed %d: full encoder says %v, splice says %v", seed, ferr, serr)
			}
			failed++
			continue
		}
		if !bytes.Equal(got.Body, full.Body) || got.ID != full.ID || got.Schema != 1 || got.Type != TypeRun {
			t.Fatalf("seed %d: splice differs from the full encoder:\n%s\n%s", seed, got.Body, full.Body)
		}
		if got.Parsed() {
			t.Fatalf("seed %d: a spliced run claims a parsed Value", seed)
		}
		if p, err := got.WithValue(); err != nil || p.Value.Kind != KindObject {
			t.Fatalf("seed %d: spliced body does not decode: %v", seed, err)
		}
		same++
	}
	if same < 1000 || failed < 300 {
		t.Fatalf("generator is lopsided: %d equal, %d failed", same, failed)
	}
}

// deriveForTest is porcelain's derivePayload: base's members less the
// replaced and dropped ones, then set.
func deriveForTest(base Value, set []Member, drop map[string]bool) Value {
	replaced := map[string]bool{}
	for _, m := range set {
		replaced[m.Key] = true
	}
	var out []Member
	for _, m := range base.Object {
		if !replaced[m.Key] && !drop[m.Key] {
			out = append(out, m)
		}
	}
	return ObjectValue(append(out, set...)...)
}

// TestRunBodyAppendRepeatedKey: a set naming a key twice has no canonical
// form, for the splice as for the full encoder.
func TestRunBodyAppendRepeatedKey(t *testing.T) {
	b, err := SplitRunBody(BLAKE3, []byte(`{"events":[],"status":"running"}`))
	if err != nil {
		t.Fatal(err)
	}
	set := []Member{{Key: "tips", Value: Array()}, {Key: "tips", Value: Array()}}
	if _, err := b.Append(nil, set, nil); !errors.Is(err, ErrDuplicateMember) {
		t.Fatalf("Append with tips twice: %v, want ErrDuplicateMember", err)
	}
	if _, err := NewJSONObject(BLAKE3, TypeRun, 1, ObjectValue(append([]Member{{Key: "events", Value: Array()}}, set...)...)); !errors.Is(err, ErrDuplicateMember) {
		t.Fatalf("full encoder with tips twice: %v, want ErrDuplicateMember", err)
	}
	if _, err := b.Append(nil, []Member{{Key: "events", Value: Array()}}, nil); !errors.Is(err, ErrSpliceEvents) {
		t.Fatalf("Append setting events: %v", err)
	}
}

// TestSplitRunBodyRefusesNonCanonical: a body SplitRunBody accepts is
// canonical; these are not (or hold an events list it does not read), and
// each is refused.
func TestSplitRunBodyRefusesNonCanonical(t *testing.T) {
	e := `"event:blake3:` + string(bytes.Repeat([]byte("ab"), 32)) + `"`
	for _, body := range []string{
		``, `[]`, `{ }`, `{"a":1 }`, `{"b":1,"a":2}`, `{"a":1,"a":1}`, `{"a":-0}`, `{"a":1.0}`, `{"a":"\u0041"}`,
		`{"a":1e400}`, `{"a":9007199254740993}`, `{"\u0061":1}`, `{"a":[1, 2]}`, `{"events":"x"}`, `{"events":{"a":1}}`, `{"events":true}`, `{"events":[` + e + `,]}`,
		`{"events":["event:sha256:` + string(bytes.Repeat([]byte("ab"), 32)) + `"]}`,
		`{"events":["event:blake3:` + string(bytes.Repeat([]byte("AB"), 32)) + `"]}`,
		`{"events":["run:blake3:` + string(bytes.Repeat([]byte("ab"), 32)) + `"]}`,
		`{"events":[` + e + `]`, `{"events":[` + e + `]}}`, `{"a":{"b":1,"a":2}}`, `{"a":"` + "\x01" + `"}`,
	} {
		if _, err := SplitRunBody(BLAKE3, []byte(body)); !errors.Is(err, ErrNotSpliceable) {
			t.Errorf("SplitRunBody(%q) = %v, want ErrNotSpliceable", body, err)
		}
	}
	if b, err := SplitRunBody(BLAKE3, []byte(`{"events":[`+e+`,`+e+`],"status":"running"}`)); err != nil || b.Len() != 2 {
		t.Fatalf("a canonical body: %v", err)
	}
	// A falsy events value is an empty list (SPEC §1.5), which an append
	// replaces.
	for _, falsy := range []string{`null`, `false`, `0`, `""`, `{}`, `[]`} {
		b, err := SplitRunBody(BLAKE3, []byte(`{"events":`+falsy+`,"status":"running"}`))
		if err != nil || b.Len() != 0 {
			t.Fatalf("events %s: %v", falsy, err)
		}
		id := OID{Type: TypeEvent, Algo: BLAKE3}
		o, err := b.Append([]OID{id}, nil, nil)
		if err != nil || string(o.Body) != `{"events":["`+id.String()+`"],"status":"running"}` {
			t.Fatalf("append to events %s: %v %s", falsy, err, o.Body)
		}
	}
}

// FuzzSplitRunBody: whatever bytes SplitRunBody accepts decode as a
// canonical JSON object, and appending to them gives the full encoder's
// bytes.
func FuzzSplitRunBody(f *testing.F) {
	e := `"event:blake3:` + string(bytes.Repeat([]byte("0f"), 32)) + `"`
	for _, s := range []string{`{}`, `{"events":[]}`, `{"events":[` + e + `],"status":"running","tips":[` + e + `]}`, `{"a":{"\u00e9":[1,2.5,"x"]},"events":[` + e + `]}`, `{"a":1e21}`} {
		f.Add([]byte(s))
	}
	id := OID{Type: TypeEvent, Algo: BLAKE3, Digest: [32]byte{1, 2, 3}}
	f.Fuzz(func(t *testing.T, body []byte) {
		b, err := SplitRunBody(BLAKE3, body)
		if err != nil {
			return
		}
		v, err := decodeJSONBody(body)
		if err != nil || v.Kind != KindObject {
			t.Fatalf("split accepted %q, which does not decode: %v", body, err)
		}
		set := []Member{{Key: "status", Value: String("running")}}
		got, serr := b.Append([]OID{id}, set, nil)
		events, _ := v.Get("events")
		all := append(append([]Value{}, events.Array...), String(id.String()))
		full, ferr := NewJSONObject(BLAKE3, TypeRun, 1, deriveForTest(v, append([]Member{{Key: "events", Value: Array(all...)}}, set...), nil))
		if (ferr == nil) != (serr == nil) || (ferr == nil && !bytes.Equal(got.Body, full.Body)) {
			t.Fatalf("body %q: splice %v, full %v", body, serr, ferr)
		}
	})
}

// TestRunBodyIndex: Index finds every event by scanning the list's bytes
// and, past maxListSearches, by the index it builds; absent oids are -1.
func TestRunBodyIndex(t *testing.T) {
	g := &spliceGen{rng: rand.New(rand.NewPCG(1, 2)), algo: BLAKE3}
	ids := g.oids(50)
	o, err := NewJSONObject(BLAKE3, TypeRun, 1, ObjectValue(Member{Key: "events", Value: oidsValue(ids)}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := SplitRunBody(BLAKE3, o.Body)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		for i, id := range ids {
			if got := b.Index(id); got != i || b.Event(i) != id {
				t.Fatalf("round %d: Index(%s) = %d, Event(%d) = %s, want %d", round, id, got, i, b.Event(i), i)
			}
		}
		for _, id := range g.oids(3) {
			if b.Index(id) != -1 {
				t.Fatalf("absent %s found", id)
			}
		}
	}
	if b.Index(OID{Type: TypeRun, Algo: BLAKE3, Digest: ids[0].Digest}) != -1 {
		t.Fatal("a run oid with an event's digest was found")
	}
}

// TestLowerHex: the eight-bytes-at-a-time check agrees with the byte
// test on every byte value in every lane, and on random words.
func TestLowerHex(t *testing.T) {
	isHex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' }
	base := []byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	for lane := range 8 {
		for c := range 256 {
			b := append([]byte{}, base...)
			b[lane] = byte(c)
			if lowerHex(b) != isHex(byte(c)) {
				t.Fatalf("byte %#x in lane %d: lowerHex says %v", c, lane, lowerHex(b))
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		b := make([]byte, 8)
		for i := range b {
			b[i] = base[rng.IntN(16)]
			if rng.IntN(20) == 0 {
				b[i] = byte(rng.IntN(256))
			}
		}
		want := true
		for _, c := range b {
			want = want && isHex(c)
		}
		if lowerHex(b) != want {
			t.Fatalf("%q: lowerHex says %v", b, !want)
		}
	}
}
