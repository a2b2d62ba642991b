package objects

import (
	"bytes"
	"sync"
)

// Cheap exact prefilters for RedactBlob (issue 13: hash-object -w scrubs
// every blob, and the bulk write of 100,000 small files spent a quarter of
// its CPU here). Each answers "could the full rule apply?": a false never
// hides a match, so the scrubbed bytes are the same as without them.

// tokenTrigger is a byte that every occurrence of some token literals
// holds at a known offset, and those literals.
type tokenTrigger struct {
	c    byte
	lits []triggeredLiteral
}

// triggeredLiteral is a token literal whose byte at off is the trigger.
type triggeredLiteral struct {
	lit []byte
	off int
}

// tokenTriggerOrder lists the bytes tried as triggers, rarest in ordinary
// text first; every token literal holds at least one of them.
var tokenTriggerOrder = []byte{'_', '-', 'J', 'A'}

// tokenTriggers groups tokenLiterals by their trigger byte. It and
// labelTrie are built on first use, like the regexps: process start pays
// for no table most commands never use (issue 13, TestPackageInitAllocatesLittle).
var tokenTriggers = sync.OnceValue(func() []tokenTrigger { return groupTokenLiterals(tokenLiterals) })

// groupTokenLiterals gives each literal the first byte of tokenTriggerOrder
// it holds. A literal holding none gets its own first byte, so the scan
// stays exact whatever is added to tokenLiterals.
func groupTokenLiterals(lits [][]byte) []tokenTrigger {
	var groups []tokenTrigger
	add := func(c byte, l triggeredLiteral) {
		for i := range groups {
			if groups[i].c == c {
				groups[i].lits = append(groups[i].lits, l)
				return
			}
		}
		groups = append(groups, tokenTrigger{c: c, lits: []triggeredLiteral{l}})
	}
	for _, lit := range lits {
		c, off := lit[0], 0
		for _, t := range tokenTriggerOrder {
			if k := bytes.IndexByte(lit, t); k >= 0 {
				c, off = t, k
				break
			}
		}
		add(c, triggeredLiteral{lit: lit, off: off})
	}
	return groups
}

// mayHoldToken reports whether b contains a literal some tokenShape match
// needs; false means tokenShape cannot match b. It finds each trigger byte
// with a vectorised IndexByte and compares only the literals it anchors,
// instead of one substring search per literal.
func mayHoldToken(b []byte) bool {
	for _, g := range tokenTriggers() {
		for i := 0; i < len(b); {
			k := bytes.IndexByte(b[i:], g.c)
			if k < 0 {
				break
			}
			at := i + k
			for _, l := range g.lits {
				s := at - l.off
				if s >= 0 && bytes.HasPrefix(b[s:], l.lit) {
					return true
				}
			}
			i = at + 1
		}
	}
	return false
}

// labelTails are the compacted endings (lower case, '_' and '-' dropped)
// of every key name classifyName does not call notSecret: the compacted
// secret suffixes, "token", and each credential name's compacted form,
// also with the trailing "s" classifyName accepts.
func labelTails() []string {
	tails := append([]string{"token"}, compactSuffixes...)
	for n := range credentialNames {
		c := compact(n)
		tails = append(tails, c, c+"s")
	}
	return tails
}

// tailNode is a node of labelTrie: children by letter, and whether a tail
// ends here.
type tailNode struct {
	next [26]int16
	end  bool
}

// labelTrie holds labelTails reversed, so a label is matched from its last
// byte backwards; all is set when a tail holds a byte other than a
// lower-case letter (no SPEC §1.7 name does): the trie cannot hold it, so
// every label goes to classifyName.
var labelTrie = sync.OnceValue(func() tailTrie {
	nodes, all := buildLabelTrie(labelTails())
	return tailTrie{nodes: nodes, all: all}
})

// tailTrie is labelTrie's value.
type tailTrie struct {
	nodes []tailNode
	all   bool
}

// buildLabelTrie builds the reversed trie of tails; all reports a tail it
// could not hold.
func buildLabelTrie(tails []string) (nodes []tailNode, all bool) {
	nodes = []tailNode{{}}
	for _, t := range tails {
		n := 0
		for i := len(t) - 1; i >= 0; i-- {
			c := t[i] - 'a'
			if c >= 26 {
				return nil, true
			}
			if nodes[n].next[c] == 0 {
				nodes = append(nodes, tailNode{})
				nodes[n].next[c] = int16(len(nodes) - 1)
			}
			n = int(nodes[n].next[c])
		}
		nodes[n].end = true
	}
	return nodes, false
}

// labelMayBeSecret reports whether classifyName could call the assignment
// label (bytes isLabelByte accepts) anything but notSecret: its compacted
// form, which classifyName tests, must end with one of labelTails. The
// compacted form of such a label is its bytes lower-cased without '_' and
// '-' (NormalizeKeyName only inserts and rewrites underscores), so this
// walks the label backwards through labelTrie without building a string.
func labelMayBeSecret(label []byte) bool {
	trie := labelTrie()
	if trie.all {
		return true
	}
	n := 0
	for i := len(label) - 1; i >= 0; i-- {
		c := label[i]
		if c == '_' || c == '-' {
			continue
		}
		if isASCIIUpper(c) {
			c += 'a' - 'A'
		}
		if !isASCIILower(c) {
			return false
		}
		next := trie.nodes[n].next[c-'a']
		if next == 0 {
			return false
		}
		n = int(next)
		if trie.nodes[n].end {
			return true
		}
	}
	return false
}
