package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxTreeDepth bounds the nesting of a protocol value. The deepest suite
// value is 513 containers (canon.v3.depth.at-513); the bound only keeps a
// hostile line from recursing without limit.
const maxTreeDepth = 4096

// node is a JSON value exactly as written in a protocol line: object members
// keep their order and numbers keep their literal, so the tag layer (and the
// comparison of outputs) decides what they mean.
type node struct {
	kind    nodeKind
	boolean bool
	str     string // string value, or the literal of a number
	arr     []node
	obj     []nodeMember
}

type nodeMember struct {
	key   string
	value node
}

type nodeKind uint8

const (
	nodeNull nodeKind = iota
	nodeBool
	nodeNumber
	nodeString
	nodeArray
	nodeObject
)

// parseTree reads one JSON value (and nothing after it) into a node tree.
func parseTree(data []byte) (node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := readNode(dec, 0)
	if err != nil {
		return node{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return node{}, fmt.Errorf("protocol value: trailing data after the value")
	}
	return n, nil
}

func readNode(dec *json.Decoder, depth int) (node, error) {
	tok, err := dec.Token()
	if err != nil {
		return node{}, fmt.Errorf("protocol value: %w", err)
	}
	switch t := tok.(type) {
	case nil:
		return node{kind: nodeNull}, nil
	case bool:
		return node{kind: nodeBool, boolean: t}, nil
	case json.Number:
		return node{kind: nodeNumber, str: t.String()}, nil
	case string:
		return node{kind: nodeString, str: t}, nil
	case json.Delim:
		if depth >= maxTreeDepth {
			return node{}, errTreeDepth
		}
		if t == '[' {
			n := node{kind: nodeArray, arr: []node{}}
			for dec.More() {
				elem, err := readNode(dec, depth+1)
				if err != nil {
					return node{}, err
				}
				n.arr = append(n.arr, elem)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
		n := node{kind: nodeObject, obj: []nodeMember{}}
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return node{}, fmt.Errorf("protocol value: %w", err)
			}
			key, _ := kt.(string)
			if seen[key] {
				return node{}, fmt.Errorf("%w: %q", errTreeDuplicate, key)
			}
			seen[key] = true
			v, err := readNode(dec, depth+1)
			if err != nil {
				return node{}, err
			}
			n.obj = append(n.obj, nodeMember{key: key, value: v})
		}
		_, err := dec.Token() // '}'
		return n, err
	}
	return node{}, fmt.Errorf("protocol value: unexpected token %v", tok)
}
