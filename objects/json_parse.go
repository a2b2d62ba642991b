package objects

import (
	"fmt"
	"sync"
)

// MaxJSONDepth is the deepest container nesting any JSON input or canonical
// output may have: 512 nested containers are accepted, 513 refused (SPEC §0.2,
// §0.5).
const MaxJSONDepth = 512

// MaxBodyTokens is the structural-token budget of a v3 JSON envelope body
// (SPEC §0.5).
const MaxBodyTokens = 200000

// maxParseDepthCeiling bounds ParseOptions.MaxDepth so that the recursive
// descent can never exhaust the goroutine stack, whatever a caller asks for.
const maxParseDepthCeiling = 100000

// dupScanLimit is the member count up to which duplicate keys are found by a
// linear scan; larger objects switch to a map so that a hostile object with
// many keys costs O(n), not O(n²).
const dupScanLimit = 16

// ParseOptions selects the strictness of ParseJSON. The zero value is the
// strict reader the v3 format uses for headers.
type ParseOptions struct {
	// MaxDepth is the container nesting limit; 0 means MaxJSONDepth
	// (SPEC §0.2). Values above 100000 are clamped to 100000. Exceeding it
	// yields a *ParseError of kind ParseDepth.
	MaxDepth int
	// DemoteBigInts turns integer literals with |n| > 2^53-1 into
	// KindFloat float64(literal), as the v3 body reader must (SPEC §0.2
	// demotion).
	DemoteBigInts bool
	// MaxIntDigits bounds the decimal digits of an integer literal; 0 means
	// unbounded. More digits yield ParseTooManyDigits (the .tine 4096-digit
	// rule, SPEC §3.1). The count is taken before any conversion. Exact
	// conversion of a huge literal costs time quadratic in its length, so a
	// caller reading unbounded untrusted input without DemoteBigInts should
	// set a bound.
	MaxIntDigits int
	// AllowLoneSurrogates carries unpaired surrogates through as WTF-8 in
	// Value.Str instead of refusing them with ParseLoneSurrogate (SPEC §0.1).
	AllowLoneSurrogates bool
	// RefuseUnsafeInts refuses an integer literal outside ±(2^53-1) with
	// ParseIntegerOverflow, before any conversion, instead of keeping it
	// exact or demoting it: input a user hands to a writer is never
	// silently rounded (SPEC §0.2 rule 7). It overrides DemoteBigInts and
	// is checked before MaxIntDigits. ParseInput sets it.
	RefuseUnsafeInts bool
	// AllowNonFinite accepts the NaN, Infinity and -Infinity literals and
	// float literals that overflow to ±Inf. No writer uses it; when false
	// they yield ParseNonFinite.
	AllowNonFinite bool
}

// ParseErrorKind classifies why ParseJSON refused its input, so that each
// format layer can map it to its own reason code.
type ParseErrorKind int

// The kinds of parse failure.
const (
	ParseSyntax          ParseErrorKind = iota // not RFC 8259 JSON, or not UTF-8
	ParseDuplicateKey                          // an object repeats a key (after unescaping)
	ParseLoneSurrogate                         // an unpaired surrogate, escaped or raw
	ParseNonFinite                             // NaN, Infinity, or a float literal overflowing to ±Inf
	ParseTooManyDigits                         // an integer literal longer than MaxIntDigits
	ParseDepth                                 // containers nested deeper than MaxDepth
	ParseIntegerOverflow                       // an integer literal outside ±(2^53-1) (RefuseUnsafeInts), or too big for a double (DemoteBigInts)
)

// String returns a short name of the kind.
func (k ParseErrorKind) String() string {
	switch k {
	case ParseSyntax:
		return "syntax"
	case ParseDuplicateKey:
		return "duplicate-key"
	case ParseLoneSurrogate:
		return "lone-surrogate"
	case ParseNonFinite:
		return "non-finite"
	case ParseTooManyDigits:
		return "too-many-digits"
	case ParseDepth:
		return "depth"
	case ParseIntegerOverflow:
		return "integer-overflow"
	}
	return "invalid"
}

// ParseError is the only error ParseJSON returns.
type ParseError struct {
	Kind   ParseErrorKind
	Offset int    // byte offset in the input where the fault was found
	Msg    string // human-readable detail
	// Path is the JSON path of the value being read when the fault was
	// found: "$" for the top-level value, "$.a[2]" for the third element
	// of member a, `$["odd key"]` for keys that are not identifiers.
	Path string
	// segs collects Path's segments innermost first while the error
	// unwinds through the containers (ParseJSON joins them once).
	segs []string
}

// Error returns "json <kind>: <msg> at byte <offset>", naming the path too
// when the fault is inside a container.
func (e *ParseError) Error() string {
	if e.Path != "" && e.Path != "$" {
		return fmt.Sprintf("json %s: %s at %s (byte %d)", e.Kind, e.Msg, e.Path, e.Offset)
	}
	return fmt.Sprintf("json %s: %s at byte %d", e.Kind, e.Msg, e.Offset)
}

// jsonParser is one run of the strict reader. The scratch stacks let every
// array and object be collected without growing its own slice: children are
// pushed, then copied once into an exact-size slice.
type jsonParser struct {
	data     []byte
	src      string // one immutable copy of data; escape-free strings and number literals are sliced from it
	pos      int
	opt      ParseOptions
	maxDepth int
	buf      []byte   // unescaped string under construction
	vals     []Value  // pending array elements, all open arrays stacked
	mems     []Member // pending object members, all open objects stacked
}

// parseScratch is the reusable part of a jsonParser: the scratch stacks
// that would otherwise be regrown on every call.
type parseScratch struct {
	buf  []byte
	vals []Value
	mems []Member
}

// scratchPool recycles parseScratch between ParseJSON calls.
var scratchPool = sync.Pool{New: func() any { return new(parseScratch) }}

// maxPooledScratch keeps a huge document's stacks out of the pool so that
// one outlier does not pin its memory for the life of the process.
const maxPooledScratch = 4096

// ParseJSON reads one JSON value under the strict rules of SPEC §0.1-§0.2:
// RFC 8259 grammar, leading and trailing whitespace only, UTF-8 only,
// duplicate keys refused at any depth (compared after unescaping), unpaired
// surrogates refused, integer and float kept apart by the literal, and the
// bounds of opt enforced while reading. Every error is a *ParseError.
//
// The input is copied once and strings without escapes share that copy, so
// a retained Value keeps up to len(data) bytes alive; data itself is never
// referenced after ParseJSON returns.
func ParseJSON(data []byte, opt ParseOptions) (Value, error) {
	sc := scratchPool.Get().(*parseScratch)
	p := jsonParser{data: data, src: string(data), opt: opt, maxDepth: opt.MaxDepth,
		buf: sc.buf, vals: sc.vals, mems: sc.mems}
	defer func() {
		// Each finished container cleared and truncated its own frame, so
		// only a failed parse leaves references, all below len.
		clear(p.vals)
		clear(p.mems)
		if cap(p.vals) <= maxPooledScratch && cap(p.mems) <= maxPooledScratch && cap(p.buf) <= 64*maxPooledScratch {
			sc.buf, sc.vals, sc.mems = p.buf[:0], p.vals[:0], p.mems[:0]
			scratchPool.Put(sc)
		}
	}()
	if p.maxDepth <= 0 {
		p.maxDepth = MaxJSONDepth
	}
	p.maxDepth = min(p.maxDepth, maxParseDepthCeiling)
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return Value{}, finishPath(err)
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return Value{}, p.fail(ParseSyntax, "unexpected data after the value")
	}
	return v, nil
}

// fail builds a *ParseError at the current position.
func (p *jsonParser) fail(k ParseErrorKind, msg string) error {
	return &ParseError{Kind: k, Offset: p.pos, Msg: msg}
}

// failAt builds a *ParseError at offset off.
func (p *jsonParser) failAt(k ParseErrorKind, off int, msg string) error {
	return &ParseError{Kind: k, Offset: off, Msg: msg}
}

// skipSpace skips the four RFC 8259 whitespace bytes and nothing else.
func (p *jsonParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value reads any value; depth is the number of containers around it.
func (p *jsonParser) value(depth int) (Value, error) {
	if p.pos >= len(p.data) {
		return Value{}, p.fail(ParseSyntax, "unexpected end of input, want a value")
	}
	switch c := p.data[p.pos]; c {
	case '{':
		return p.object(depth)
	case '[':
		return p.array(depth)
	case '"':
		s, err := p.str()
		return Value{Kind: KindString, Str: s}, err
	case 't':
		return p.literal("true", Value{Kind: KindBool, Bool: true})
	case 'f':
		return p.literal("false", Value{Kind: KindBool})
	case 'n':
		return p.literal("null", Value{Kind: KindNull})
	case 'N', 'I':
		return p.nonFinite(p.pos, false)
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return p.number()
		}
		return Value{}, p.fail(ParseSyntax, fmt.Sprintf("unexpected byte %q, want a value", c))
	}
}

// literal reads one of the keywords true, false and null.
func (p *jsonParser) literal(word string, v Value) (Value, error) {
	end := p.pos + len(word)
	if end > len(p.data) || p.src[p.pos:end] != word {
		return Value{}, p.fail(ParseSyntax, "invalid literal, want "+word)
	}
	p.pos = end
	return v, nil
}

// array reads '[' ... ']'.
func (p *jsonParser) array(depth int) (Value, error) {
	if depth >= p.maxDepth {
		return Value{}, p.fail(ParseDepth, fmt.Sprintf("more than %d nested containers", p.maxDepth))
	}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return Value{Kind: KindArray, Array: []Value{}}, nil
	}
	base := len(p.vals)
	for i := 0; ; i++ {
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return Value{}, inPath(err, indexSeg(i))
		}
		p.vals = append(p.vals, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.fail(ParseSyntax, "unterminated array")
		}
		c := p.data[p.pos]
		p.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			return Value{}, p.failAt(ParseSyntax, p.pos-1, fmt.Sprintf("unexpected byte %q in array", c))
		}
	}
	elems := make([]Value, len(p.vals)-base)
	copy(elems, p.vals[base:])
	clear(p.vals[base:])
	p.vals = p.vals[:base]
	return Value{Kind: KindArray, Array: elems}, nil
}

// object reads '{' ... '}', refusing a repeated key.
func (p *jsonParser) object(depth int) (Value, error) {
	if depth >= p.maxDepth {
		return Value{}, p.fail(ParseDepth, fmt.Sprintf("more than %d nested containers", p.maxDepth))
	}
	p.pos++
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return Value{Kind: KindObject, Object: []Member{}}, nil
	}
	base := len(p.mems)
	var seen map[string]struct{}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return Value{}, p.fail(ParseSyntax, "want a string key")
		}
		keyAt := p.pos
		key, err := p.str()
		if err != nil {
			return Value{}, err
		}
		if p.isDuplicate(base, key, &seen) {
			return Value{}, p.failAt(ParseDuplicateKey, keyAt, fmt.Sprintf("duplicate key %q", key))
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return Value{}, p.fail(ParseSyntax, "want ':' after an object key")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth + 1)
		if err != nil {
			return Value{}, inPath(err, keySeg(key))
		}
		p.mems = append(p.mems, Member{Key: key, Value: v})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return Value{}, p.fail(ParseSyntax, "unterminated object")
		}
		c := p.data[p.pos]
		p.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			return Value{}, p.failAt(ParseSyntax, p.pos-1, fmt.Sprintf("unexpected byte %q in object", c))
		}
	}
	members := make([]Member, len(p.mems)-base)
	copy(members, p.mems[base:])
	clear(p.mems[base:])
	p.mems = p.mems[:base]
	return Value{Kind: KindObject, Object: members}, nil
}

// isDuplicate reports whether key already names a member of the object
// whose members start at p.mems[base]. SPEC §3.7: last-wins would be a
// parser differential, so any repeat is refused.
func (p *jsonParser) isDuplicate(base int, key string, seen *map[string]struct{}) bool {
	open := p.mems[base:]
	if *seen == nil && len(open) < dupScanLimit {
		for i := range open {
			if open[i].Key == key {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]struct{}, 2*len(open))
		for i := range open {
			(*seen)[open[i].Key] = struct{}{}
		}
	}
	if _, ok := (*seen)[key]; ok {
		return true
	}
	(*seen)[key] = struct{}{}
	return false
}
