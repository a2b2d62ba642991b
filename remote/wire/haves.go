package wire

// tine's extension for haves: OpenTine's server subtracts a fetch's haves
// literally (spec §14.1), and a client may send at most MaxListIDs of them,
// so a receiver holding more of a run than that is sent the rest again on
// every fetch. A server offering TineCaps.HaveClosure reads a fetch
// carrying HeaderHaves: HavesClosure as "the receiver holds the whole link
// closure of each have" (a receiver without a shallow boundary sends its
// tracking refs' values): it walks the wants stopping at what those
// closures hold, as a path remote does, so only what the receiver lacks
// (and new associations of the runs it has) is sent.
const (
	// HaveClosureVersion is TineCaps.HaveClosure's value.
	HaveClosureVersion = 1
	// HeaderHaves is the request header by which a fetch says its haves
	// are closure roots.
	HeaderHaves = "Tine-Haves"
	// HavesClosure is HeaderHaves's one value.
	HavesClosure = "closure"
)
