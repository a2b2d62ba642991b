package objects

// ScanShape is the structural byte scanner of SPEC §0.5, run over untrusted
// JSON bytes before any parse so that a hostile document cannot make the
// parser allocate or recurse without bound.
//
// '[' and '{' raise the running depth and ']' and '}' lower it; the depth
// must never exceed MaxJSONDepth (shape.depth-exceeded). Each of the bytes
// [ { , : ] } is one structural token and the total must not exceed
// maxTokens (shape.tokens-exceeded); a budget met exactly is accepted.
// Bytes inside string literals are skipped, honouring backslash escapes.
// The scanner is not a parser: unbalanced brackets (even a negative depth)
// and grammar errors are left for the parse to report.
//
// maxTokens <= 0 selects MaxBodyTokens, the envelope-body budget, so that a
// forgotten argument never means "unbounded".
func ScanShape(data []byte, maxTokens int) error {
	if maxTokens <= 0 {
		maxTokens = MaxBodyTokens
	}
	depth, tokens := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = skipStringBytes(data, i+1)
			continue
		case '[', '{':
			depth++
			if depth > MaxJSONDepth {
				return Errorf(ReasonShapeDepthExceeded, "json nests deeper than %d at byte %d", MaxJSONDepth, i)
			}
		case ']', '}':
			depth--
		case ',', ':':
		default:
			continue
		}
		tokens++
		if tokens > maxTokens {
			return Errorf(ReasonShapeTokensExceeded, "json has more than %d structural tokens (byte %d)", maxTokens, i)
		}
	}
	return nil
}

// skipStringBytes returns the index of the quote closing the string whose
// contents begin at data[i], or len(data) when the string never closes. A
// backslash always consumes the byte after it, so \" and \\ are handled.
func skipStringBytes(data []byte, i int) int {
	for ; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(data)
}
