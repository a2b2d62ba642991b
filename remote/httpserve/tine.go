package httpserve

import (
	"fmt"
	"net/http"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/wire"
)

// normalizeTine fills the tine extension's counts of cfg and refuses ones
// outside [objects.MaxPackObjects, wire.TineMax…].
func normalizeTine(cfg *Config) error {
	if cfg.TinePackObjects == 0 {
		cfg.TinePackObjects = wire.TineMaxPackObjects
	}
	if cfg.TineShallow == 0 {
		cfg.TineShallow = wire.TineMaxShallow
	}
	caps := wire.TineCaps{Version: wire.TineVersion, MaxPackObjects: cfg.TinePackObjects, MaxShallow: cfg.TineShallow}
	if err := caps.Check(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	return nil
}

// tineCaps is the capabilities' tine field, nil when the extension is
// hidden.
func (s *Server) tineCaps() *wire.TineCaps {
	if s.cfg.HideTineExtension {
		return nil
	}
	caps := &wire.TineCaps{Version: wire.TineVersion, MaxPackObjects: s.cfg.TinePackObjects, MaxShallow: s.cfg.TineShallow,
		MaxChunk: s.cfg.MaxBodyBytes, HaveClosure: wire.HaveClosureVersion}
	if !s.cfg.NoTineFrame {
		caps.Frame = wire.FrameVersion
		if !s.cfg.NoTineFrameBlocks {
			caps.FrameBlocks = wire.FrameBlocksVersion
			if !s.cfg.NoTineFetchBlocks {
				caps.FetchBlocks = wire.FrameBlocksVersion
			}
		}
	}
	return caps
}

// frameChoice is what a fetch or upload request asks of tine's binary
// frame.
type frameChoice struct {
	// binary: the request reads or writes binary frames.
	binary bool
	// blocks: an upload may be a version 2 frame (raw storage blocks),
	// or a fetch is answered with one; asked with wire.HeaderFrame:
	// wire.FrameBlocksHeaderValue.
	blocks bool
	// compress: a fetch's frame body is zstd-compressed (the client did
	// not ask for wire.FrameCodecNone).
	compress bool
}

// binaryFrame reports what a fetch or upload request asks: binary frames
// when it carries wire.HeaderFrame with the version this server speaks and
// the server serves them (a server hiding the extension or the frame
// ignores the headers, as one from before the frame does), bodies not
// compressed when it also carries wire.HeaderFrameCodec: none. An upload
// (upload) or a fetch may ask for version 2 (wire.FrameBlocksHeaderValue)
// unless the server does not serve it there. Any other value of either
// header is refused (400).
func (s *Server) binaryFrame(r *http.Request, upload bool) (frameChoice, *httpError) {
	v, ok := r.Header[http.CanonicalHeaderKey(wire.HeaderFrame)]
	if !ok || s.cfg.HideTineExtension || s.cfg.NoTineFrame {
		return frameChoice{}, nil
	}
	fc := frameChoice{binary: true, compress: true}
	switch {
	case len(v) == 1 && v[0] == wire.FrameHeaderValue:
	case len(v) == 1 && v[0] == wire.FrameBlocksHeaderValue && s.servesBlocks(upload):
		fc.blocks = true
	default:
		return frameChoice{}, invalid(fmt.Sprintf("%s %.20q: this server speaks frame version %d%s", wire.HeaderFrame, v, wire.FrameVersion, s.blocksNote(upload)))
	}
	if c, ok := r.Header[http.CanonicalHeaderKey(wire.HeaderFrameCodec)]; ok {
		if len(c) != 1 || c[0] != wire.FrameCodecNone {
			return frameChoice{}, invalid(fmt.Sprintf("%s %.20q: the only codec to ask for is %s", wire.HeaderFrameCodec, c, wire.FrameCodecNone))
		}
		fc.compress = false
	}
	return fc, nil
}

// servesBlocks reports whether an upload (upload) or a fetch may ask for
// version 2 of the binary frame.
func (s *Server) servesBlocks(upload bool) bool {
	return !s.cfg.NoTineFrameBlocks && (upload || !s.cfg.NoTineFetchBlocks)
}

// blocksNote completes binaryFrame's refusal with the version 2 the
// request may also ask for.
func (s *Server) blocksNote(upload bool) string {
	if !s.servesBlocks(upload) {
		return ""
	}
	return fmt.Sprintf(" and %d", wire.FrameBlocksVersion)
}

// explains reports whether r opted in to tine's extension (wire.HeaderTine
// with the version this server speaks) on a server that offers it: a
// refusal then says why (wire.RefusalRole and the others), where
// OpenTine's fixed text cannot.
func (s *Server) explains(r *http.Request) bool {
	if s.cfg.HideTineExtension {
		return false
	}
	v := r.Header.Values(wire.HeaderTine)
	return len(v) == 1 && v[0] == wire.TineHeaderValue
}

// packLimits returns the manifest counts a fetch or upload request gets:
// the format's, unless it carries wire.HeaderTine with the extension's
// version and the extension is served (a server hiding it ignores the
// header, as OpenTine's does). Any other value of the header is refused
// (400).
func (s *Server) packLimits(r *http.Request) (objects.PackLimits, *httpError) {
	v, ok := r.Header[http.CanonicalHeaderKey(wire.HeaderTine)]
	if !ok {
		return objects.DefaultPackLimits, nil
	}
	if s.cfg.HideTineExtension {
		return objects.DefaultPackLimits, nil
	}
	if len(v) != 1 || v[0] != wire.TineHeaderValue {
		return objects.PackLimits{}, invalid(fmt.Sprintf("%s %.20q: this server speaks version %d", wire.HeaderTine, v, wire.TineVersion))
	}
	return objects.PackLimits{Objects: s.cfg.TinePackObjects, Shallow: s.cfg.TineShallow}, nil
}
