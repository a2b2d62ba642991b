package objects

import (
	"testing"
)

// TestValidateTextVectors transcribes the text.validate cases of 00-text and
// 99-repair.
func TestValidateTextVectors(t *testing.T) {
	cases := []struct {
		id     string
		in     string
		reject bool
	}{
		{"text.boundary.u-d7ff", "{\"k\":\"\xed\x9f\xbf\"}", false},
		{"text.boundary.u-e000", "{\"k\":\"\xee\x80\x80\"}", false},
		{"text.pair.escaped-emoji", `{"k":"\ud83d\ude00"}`, false},
		{"text.pair.raw-emoji", "{\"k\":\"\xf0\x9f\x98\x80\"}", false},
		{"text.surrogate.key-escape", `{"\ud800":1}`, true},
		{"text.surrogate.key-raw-cesu8", "{\"\xed\xa0\x80\":1}", true},
		{"text.surrogate.low-escape", `{"k":"\udfff"}`, true},
		{"text.surrogate.low-raw-cesu8", "{\"k\":\"\xed\xbf\xbf\"}", true},
		{"text.surrogate.mixed-with-valid", `{"ok":"fine","bad":"a\udc00b"}`, true},
		{"text.surrogate.nested-in-array", `{"k":[{"deep":"\udbff"}]}`, true},
		{"text.surrogate.split-emoji-high", `{"k":"\ud83d"}`, true},
		{"text.surrogate.value-escape", `{"k":"\ud800"}`, true},
		{"text.surrogate.value-raw-cesu8", "{\"k\":\"\xed\xa0\x80\"}", true},
		{"repair.surrogate-to-replacement-character", `{"k":"\ud800"}`, true},
		{"non-finite-is-not-a-text-fault", `{"k":NaN,"n":123456789012345678901234567890}`, false},
		{"replacement-character-itself", "{\"k\":\"\xef\xbf\xbd\\ufffd\"}", false},
	}
	for _, c := range cases {
		err := ValidateText([]byte(c.in))
		if !c.reject {
			if err != nil {
				t.Errorf("%s: %v", c.id, err)
			}
			continue
		}
		if !HasReason(err, ReasonTextLoneSurrogate) {
			t.Errorf("%s: got %v, want %s", c.id, err, ReasonTextLoneSurrogate)
		}
	}
}

func TestValidateTextMalformedHasNoTextReason(t *testing.T) {
	err := ValidateText([]byte(`{"k":`))
	if err == nil {
		t.Fatal("malformed JSON accepted")
	}
	if _, ok := ReasonOf(err); ok {
		t.Fatalf("malformed JSON carries a reason: %v", err)
	}
	if jtKind(t, err) != ParseSyntax {
		t.Fatalf("got %v", err)
	}
}

func TestDecodeWTF8(t *testing.T) {
	cases := []struct {
		in        string
		size      int
		surrogate bool
	}{
		{"\xc3\xa9", 2, false},
		{"\xed\x9f\xbf", 3, false},
		{"\xed\xa0\x80", 3, true},
		{"\xed\xbf\xbf", 3, true},
		{"\xed\xc0\x80", 0, false},
		{"\xed\xa0", 0, false},
		{"\xf0\x9f\x98\x80", 4, false},
		{"\xc0\x80", 0, false},
		{"\xf8\x88\x80\x80\x80", 0, false},
	}
	for _, c := range cases {
		size, sur := decodeWTF8([]byte(c.in))
		if size != c.size || sur != c.surrogate {
			t.Errorf("decodeWTF8(%q) = %d, %v; want %d, %v", c.in, size, sur, c.size, c.surrogate)
		}
	}
	for _, r := range []rune{0xD800, 0xDBFF, 0xDC00, 0xDFFF} {
		enc := string(appendWTF8(nil, r))
		got, n := decodeWTF8String(enc)
		if got != r || n != 3 {
			t.Errorf("WTF-8 round trip of %U: %U, %d", r, got, n)
		}
	}
}
