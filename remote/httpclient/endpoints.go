package httpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote/wire"
)

// Capabilities is the part of the capabilities document tine reads.
type Capabilities struct {
	ObjectFormat string
	Protocol     string
	PackFormat   string
	// Tine is tine's extension, nil when the server does not offer it
	// (an OpenTine server) or offers a version this tine does not speak.
	Tine *wire.TineCaps
}

// Capabilities fetches GET /v1/capabilities.
func (c *Client) Capabilities(ctx context.Context) (*Capabilities, error) {
	req := request{method: http.MethodGet, path: "/capabilities"}
	_, m, err := c.exchange(ctx, req, http.StatusOK)
	if err != nil {
		return nil, err
	}
	var caps Capabilities
	for key, dst := range map[string]*string{"object_format": &caps.ObjectFormat, "protocol": &caps.Protocol, "pack_format": &caps.PackFormat} {
		if err := json.Unmarshal(m[key], dst); err != nil {
			return nil, fmt.Errorf("%w: capabilities %s is not a string", ErrProtocol, key)
		}
	}
	if raw, ok := m["tine"]; ok {
		var tc wire.TineCaps
		if err := json.Unmarshal(raw, &tc); err != nil {
			return nil, fmt.Errorf("%w: capabilities tine: %w", ErrProtocol, err)
		}
		if tc.Version == wire.TineVersion {
			if err := tc.Check(); err != nil {
				return nil, fmt.Errorf("%w: capabilities: %w", ErrProtocol, err)
			}
			caps.Tine = &tc
		}
	}
	return &caps, nil
}

// Algo returns the remote's object format as a hash profile (an error
// wrapping wire.ErrUnknownFormat for any other value). When the server
// offers tine's extension, Algo opts the client in: from then on its fetch
// and upload requests carry wire.HeaderTine and Limits reports the
// extension's counts; when it also offers the binary frame (TineCaps.Frame
// of wire.FrameVersion), BinaryFrames reports true, FrameBlocks when it
// offers version 2 too (TineCaps.FrameBlocks), and FetchBlocks when it
// answers fetches with version 2 as well (TineCaps.FetchBlocks).
func (c *Client) Algo(ctx context.Context) (objects.Algo, error) {
	caps, err := c.Capabilities(ctx)
	if err != nil {
		return "", err
	}
	if caps.Tine != nil {
		lim := caps.Tine.Limits()
		c.tine.Store(&lim)
		c.frame.Store(caps.Tine.Frame == wire.FrameVersion)
		c.haveClosure.Store(caps.Tine.HaveClosure == wire.HaveClosureVersion)
		c.blocks.Store(caps.Tine.Frame == wire.FrameVersion && caps.Tine.FrameBlocks == wire.FrameBlocksVersion)
		c.fetchBlocks.Store(c.blocks.Load() && caps.Tine.FetchBlocks == wire.FrameBlocksVersion)
		if !c.chunkSet {
			c.chunk.Store(c.chunkFor(caps.Tine))
		}
	}
	if caps.PackFormat != wire.PackFormat {
		return "", fmt.Errorf("%s: %w: pack format %.40q", c.base, ErrProtocol, caps.PackFormat)
	}
	a, err := wire.AlgoFor(caps.ObjectFormat)
	if err != nil {
		return "", fmt.Errorf("%s: %w", c.base, err)
	}
	return a, nil
}

// Refs fetches GET …/refs: every ref of the tenant, name to oid.
func (c *Client) Refs(ctx context.Context) (map[string]objects.OID, error) {
	req := request{method: http.MethodGet, path: c.tenantPath("refs")}
	_, m, err := c.exchange(ctx, req, http.StatusOK)
	if err != nil {
		return nil, err
	}
	var raw map[string]string
	if err := json.Unmarshal(m["refs"], &raw); err != nil || raw == nil {
		return nil, fmt.Errorf("%w: refs is not an object of strings", ErrProtocol)
	}
	out := make(map[string]objects.OID, len(raw))
	for name, v := range raw {
		id, err := objects.ParseOID(v)
		if err != nil {
			return nil, fmt.Errorf("%w: ref %.80q: %w", ErrProtocol, name, err)
		}
		out[name] = id
	}
	return out, nil
}

// SortedRefNames returns the names of refs in byte order.
func SortedRefNames(refs map[string]objects.OID) []string {
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// UpdateRef is the compare-and-swap PUT …/refs/<name>: it moves name to
// newID if it holds old (zero: must not exist). It reports false on a 409
// (the ref holds something else); every other refusal is an error.
func (c *Client) UpdateRef(ctx context.Context, name string, old, newID objects.OID) (bool, error) {
	body := map[string]any{"expected_old": nil, "new": newID.String()}
	if !old.IsZero() {
		body["expected_old"] = old.String()
	}
	b, err := json.Marshal(body)
	if err != nil {
		return false, err
	}
	// The extension's header asks a tine serve to say why a refusal is
	// one (wire.RefusalRole); other servers never see it (tineHeader).
	req := request{method: http.MethodPut, path: c.tenantPath("refs/" + url.PathEscape(name)), body: b, contentType: wire.JSONContentType, header: c.tineHeader(nil)}
	status, m, err := c.exchange(ctx, req, http.StatusOK, http.StatusConflict)
	if err != nil {
		return false, err
	}
	var updated bool
	if err := json.Unmarshal(m["updated"], &updated); err != nil || updated != (status == http.StatusOK) {
		return false, fmt.Errorf("%w: ref update reply %d without a matching \"updated\"", ErrProtocol, status)
	}
	return updated, nil
}

// FetchRequest is the body of POST …/fetch.
type FetchRequest struct {
	Wants, Haves []objects.OID
	// Depth is the event-hop limit; negative means none (null).
	Depth int
	// Types filters by object type; empty means none.
	Types []objects.Type
	// Binary asks for tine's binary frame (wire.HeaderFrame); set it only
	// when BinaryFrames reports true. The server may still answer
	// TINEPACK3; without it, a binary reply is a protocol error.
	Binary bool
	// Blocks, with Binary, asks for version 2 of the binary frame (the
	// server's storage blocks as stored); set it only when FetchBlocks
	// reports true. A version 1 reply is accepted too; without it, a
	// version 2 reply is a protocol error.
	Blocks bool
	// HavesClosure says Haves are closure roots (wire.HeaderHaves); set it
	// only when HaveClosure reports true.
	HavesClosure bool
}

// Fetch posts a fetch and returns the frame (TINEPACK3, or tine's binary
// frame when fr.Binary and the server chose it: wire.IsFrame tells, or
// wire.IsFrameBlocks for version 2 when fr.Blocks) and the
// Opentine-Associations-Omitted count (0 unless a canonical decimal of at
// most wire.MaxListIDs, as the reference client reads it).
func (c *Client) Fetch(ctx context.Context, fr FetchRequest) ([]byte, int, error) {
	if len(fr.Wants) > wire.MaxListIDs || len(fr.Haves) > wire.MaxListIDs {
		return nil, 0, fmt.Errorf("fetch: at most %d wants and haves", wire.MaxListIDs)
	}
	body := map[string]any{"wants": oidStrings(fr.Wants), "haves": oidStrings(fr.Haves), "depth": nil, "object_types": []string{}}
	if fr.Depth >= 0 {
		body["depth"] = fr.Depth
	}
	if len(fr.Types) > 0 {
		ts := make([]string, len(fr.Types))
		for i, t := range fr.Types {
			ts[i] = string(t)
		}
		sort.Strings(ts)
		body["object_types"] = ts
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, 0, err
	}
	header := c.tineHeader(nil)
	if fr.HavesClosure {
		if header == nil {
			header = map[string]string{}
		}
		header[wire.HeaderHaves] = wire.HavesClosure
	}
	if fr.Binary {
		if header == nil {
			header = map[string]string{}
		}
		header[wire.HeaderFrame] = wire.FrameHeaderValue
		if fr.Blocks {
			header[wire.HeaderFrame] = wire.FrameBlocksHeaderValue
		}
		if !c.compress {
			header[wire.HeaderFrameCodec] = wire.FrameCodecNone
		}
	}
	req := request{method: http.MethodPost, path: c.tenantPath("fetch"), body: b, contentType: wire.JSONContentType, header: header}
	resp, done, err := c.do(ctx, req)
	if err != nil {
		return nil, 0, err
	}
	defer done()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, c.statusError(req, resp)
	}
	frame, err := readPack(resp)
	if err != nil {
		return nil, 0, fmt.Errorf("POST %s: %w", c.describe(req.path), err)
	}
	binary := strings.HasPrefix(resp.Header.Get("Content-Type"), wire.FrameContentType)
	isFrame := wire.IsFrame(frame) || fr.Blocks && wire.IsFrameBlocks(frame)
	if binary && !fr.Binary || binary != isFrame {
		return nil, 0, fmt.Errorf("POST %s: %w: a reply of type %.60q that is not the frame asked for", c.describe(req.path), ErrProtocol, resp.Header.Get("Content-Type"))
	}
	omitted := 0
	if h := resp.Header.Get(wire.HeaderAssociationsOmitted); h != "" {
		if n, err := strconv.Atoi(h); err == nil && n >= 0 && n <= wire.MaxListIDs && strconv.Itoa(n) == h {
			omitted = n
		}
	}
	return frame, omitted, nil
}

// oidStrings spells ids (never null: an empty list is []).
func oidStrings(ids []objects.OID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	return out
}
