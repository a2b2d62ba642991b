package objects

// PackLimits bounds the entry counts of one TINEPACK3 manifest. Every
// OpenTine reader applies DefaultPackLimits (SPEC §2.8); a pair of peers
// that agreed on larger counts out of band (tine's remote extension) reads
// and writes frames with their own. The byte bounds (MaxPackBytes,
// MaxPackBodyBytes) are the same for every limit.
type PackLimits struct {
	// Objects bounds the objects array, Shallow the shallow array.
	Objects, Shallow int
}

// DefaultPackLimits are the manifest counts of the format: MaxPackObjects
// objects and MaxPackObjects shallow entries.
var DefaultPackLimits = PackLimits{Objects: MaxPackObjects, Shallow: MaxPackObjects}

// orDefault returns l, or DefaultPackLimits where a count is not positive.
func (l PackLimits) orDefault() PackLimits {
	if l.Objects <= 0 {
		l.Objects = MaxPackObjects
	}
	if l.Shallow <= 0 {
		l.Shallow = MaxPackObjects
	}
	return l
}

// tokens is the structural token budget of a manifest within l: six
// tokens per object entry and one per shallow entry, plus the frame's own,
// never below the format's budget, so the scan refuses a hostile body
// before the parser builds its tree while any manifest the counts admit
// still parses.
func (l PackLimits) tokens() int {
	n := 6*l.Objects + l.Shallow + 64
	if n < packManifestTokens {
		return packManifestTokens
	}
	return n
}
