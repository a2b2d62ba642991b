package wire

import (
	"fmt"
	"strconv"

	"github.com/tinehq/tine/objects"
)

// tine's extension of the protocol: larger manifest counts between a tine
// client and a tine server. A run object lists every one of its events, so
// a run's frame must name all of them, as objects or as shallow ids; past
// objects.MaxPackObjects of each a run cannot cross under the format's
// counts. The server advertises the extension as an extra capabilities
// field, {"tine":{"version":1,"max_pack_objects":N,"max_shallow":M}}
// (OpenTine clients read only object_format, spec §5.1); a client that read
// it sends HeaderTine on fetch and upload requests, and only then does the
// server read and write frames within N and M. An OpenTine server never
// advertises the field, so it never sees the header.
const (
	// TineVersion is the extension's version, the header's only value.
	TineVersion = 1
	// HeaderTine is the request header by which a client opts in.
	HeaderTine = "Tine-Extension"
	// TineMaxPackObjects bounds the objects of an extended frame: the most
	// a server may advertise and a client accepts.
	TineMaxPackObjects = 50000
	// TineMaxShallow bounds the shallow ids of an extended frame. A run
	// object parses within objects.MaxBodyTokens tokens, so it names
	// fewer events than this: any run fits one frame's shallow list.
	TineMaxShallow = objects.MaxBodyTokens
)

// TineCaps is the extension's capabilities field, fields in key order
// (the document's keys are sorted, spec §2).
type TineCaps struct {
	// FetchBlocks is FrameBlocksVersion when the server also answers a
	// fetch asking for version 2 (HeaderFrame: FrameBlocksHeaderValue)
	// with one, its storage blocks as they are stored; absent from a tine
	// serve that reads version 2 in uploads only, which refuses that
	// header on a fetch. A client asks for version 2 in a fetch only when
	// Frame, FrameBlocks and this are the versions it speaks.
	FetchBlocks int `json:"fetch_blocks,omitempty"`
	// Frame is the binary frame version the server reads and writes
	// (FrameVersion), absent when it speaks TINEPACK3 only. A client uses
	// binary frames only for the version it speaks; any other value leaves
	// it on TINEPACK3 within the counts below.
	Frame int `json:"frame,omitempty"`
	// FrameBlocks is FrameBlocksVersion when the server also reads
	// version 2 frames (raw storage blocks) in uploads; absent from a
	// tine serve older than the field, whose clients and servers ignore
	// it. A client sends version 2 frames only when both Frame and this
	// are the versions it speaks.
	FrameBlocks int `json:"frame_blocks,omitempty"`
	// HaveClosure is HaveClosureVersion when the server expands a fetch's
	// haves by their link closure on request (HeaderHaves), absent
	// otherwise.
	HaveClosure int `json:"have_closure,omitempty"`
	// MaxChunk is the largest request body, so the largest upload chunk,
	// the server reads (bytes); absent from a tine serve older than the
	// field. A client uploading to a literal loopback IP sends chunks of
	// up to this size (at most MaxRequestBytes), so a frame under it
	// crosses in one request.
	MaxChunk       int64 `json:"max_chunk,omitempty"`
	MaxPackObjects int   `json:"max_pack_objects"`
	MaxShallow     int   `json:"max_shallow"`
	Version        int   `json:"version"`
}

// Limits returns the manifest counts c grants, after Check.
func (c TineCaps) Limits() objects.PackLimits {
	return objects.PackLimits{Objects: c.MaxPackObjects, Shallow: c.MaxShallow}
}

// Check refuses an extension field this tine does not speak or whose
// counts fall outside [objects.MaxPackObjects, TineMax…].
func (c TineCaps) Check() error {
	if c.Version != TineVersion {
		return fmt.Errorf("tine extension version %d, this tine speaks %d", c.Version, TineVersion)
	}
	if c.MaxPackObjects < objects.MaxPackObjects || c.MaxPackObjects > TineMaxPackObjects {
		return fmt.Errorf("tine extension max_pack_objects %d outside %d..%d", c.MaxPackObjects, objects.MaxPackObjects, TineMaxPackObjects)
	}
	if c.MaxShallow < objects.MaxPackObjects || c.MaxShallow > TineMaxShallow {
		return fmt.Errorf("tine extension max_shallow %d outside %d..%d", c.MaxShallow, objects.MaxPackObjects, TineMaxShallow)
	}
	if c.MaxChunk < 0 {
		return fmt.Errorf("tine extension max_chunk %d is negative", c.MaxChunk)
	}
	return nil
}

// TineHeaderValue is HeaderTine's value.
var TineHeaderValue = strconv.Itoa(TineVersion)
