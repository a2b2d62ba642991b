package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The request reader splits a line into its members itself instead of
// handing it to encoding/json whole: encoding/json validates and decodes a
// string byte by byte, which takes seconds for the ~360 MB bytes_b64 of the
// suite's largest case. Here a string is skipped with bytes.IndexAny, each
// small member is still decoded (and so validated) by encoding/json, and the
// big base64 text is validated by the strict base64 decoder.

// scanObject calls fn with each member of the JSON object in data: the
// decoded key and the raw bytes of its value. Nothing may follow the object
// but whitespace.
func scanObject(data []byte, fn func(key string, raw []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errWire
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return trailing(data, i+1)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return errWire
		}
		end, err := skipString(data, i)
		if err != nil {
			return err
		}
		var key string
		if err := json.Unmarshal(data[i:end], &key); err != nil {
			return fmt.Errorf("%w: %v", errWire, err)
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return errWire
		}
		start := skipSpace(data, i+1)
		end, err = skipValue(data, start, 0)
		if err != nil {
			return err
		}
		if err := fn(key, data[start:end]); err != nil {
			return err
		}
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
			continue
		}
		if i < len(data) && data[i] == '}' {
			return trailing(data, i+1)
		}
		return errWire
	}
}

func trailing(data []byte, i int) error {
	if skipSpace(data, i) != len(data) {
		return fmt.Errorf("%w: data after the object", errWire)
	}
	return nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at data[i].
// It jumps quote to quote with bytes.IndexByte, and looks at backslashes
// only in a stretch that holds one.
func skipString(data []byte, i int) (int, error) {
	i++
	for {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return 0, fmt.Errorf("%w: unterminated string", errWire)
		}
		k := bytes.IndexByte(data[i:i+j], '\\')
		if k < 0 {
			return i + j + 1, nil
		}
		i += k + 2 // a backslash and the byte it escapes
		if i > len(data) {
			return 0, fmt.Errorf("%w: unterminated string", errWire)
		}
	}
}

// skipValue returns the index just past the JSON value starting at
// data[i]. It finds the value's extent only; the caller's decoder checks
// the value itself.
func skipValue(data []byte, i, depth int) (int, error) {
	if i >= len(data) {
		return 0, fmt.Errorf("%w: missing value", errWire)
	}
	if depth > maxTreeDepth {
		return 0, errTreeDepth
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		closer := byte('}')
		if data[i] == '[' {
			closer = ']'
		}
		i = skipSpace(data, i+1)
		for i < len(data) && data[i] != closer {
			end, err := skipValue(data, i, depth+1)
			if err != nil {
				return 0, err
			}
			i = skipSpace(data, end)
			if i < len(data) && (data[i] == ',' || data[i] == ':') {
				i = skipSpace(data, i+1)
			}
		}
		if i >= len(data) {
			return 0, fmt.Errorf("%w: unterminated %c", errWire, closer)
		}
		return i + 1, nil
	}
	j := i
	for j < len(data) && bytes.IndexByte([]byte(",}] \t\r\n:"), data[j]) < 0 {
		j++
	}
	if j == i {
		return 0, fmt.Errorf("%w: unexpected %q", errWire, data[i])
	}
	return j, nil
}
