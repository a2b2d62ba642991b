package wire

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
)

// Protocol constants of the capabilities document (spec §5.1).
const (
	// Protocol is the capabilities document's protocol value.
	Protocol = "opentine-remote/1"
	// PackFormat is the capabilities document's pack_format value.
	PackFormat = "TINEPACK3"
	// FormatSHA256 is the object_format of a sha256 server: OpenTine's own
	// value, so OpenTine clients talk to it.
	FormatSHA256 = "opentine-v3"
	// FormatBLAKE3 is the object_format of a blake3 server. OpenTine
	// clients refuse any value but FormatSHA256, which is right: they
	// cannot read blake3 objects.
	FormatBLAKE3 = "tine-v3-blake3"
)

// Header and content-type names.
const (
	// PackContentType is the content type of pack bodies.
	PackContentType = "application/vnd.opentine.pack"
	// JSONContentType is the content type of control bodies.
	JSONContentType = "application/json"
	// HeaderUploadOffset carries a resumable upload's offset.
	HeaderUploadOffset = "Upload-Offset"
	// HeaderAssociationsOmitted counts the runs whose associations did not
	// fit a fetch reply.
	HeaderAssociationsOmitted = "Opentine-Associations-Omitted"
)

// Bounds of the protocol (spec §11).
const (
	// MaxJSONTokens is the structural-token budget of a control request or
	// reply.
	MaxJSONTokens = 100000
	// MaxControlReply bounds a control reply's body (client side).
	MaxControlReply = 1 << 20
	// MaxRequestBytes bounds any request body (server side, default).
	MaxRequestBytes = 16 << 20
	// MaxUploadBytes bounds a resumable upload's declared size.
	MaxUploadBytes = 256 << 20
	// MaxListIDs bounds wants, haves and a pack's objects.
	MaxListIDs = objects.MaxPackObjects
	// MaxRefs bounds the refs of one tenant.
	MaxRefs = 4096
	// MaxRefListingBytes bounds a tenant's ref listing, counting each entry
	// as len(name)+len(oid)+6.
	MaxRefListingBytes = 896 << 10
	// MinChunkFloor is the largest minimum size of a non-final chunk.
	MinChunkFloor = 64 << 10
)

// Errors of the wire helpers.
var (
	// ErrBadTenant reports a tenant name outside the rule of spec §2.
	ErrBadTenant = errors.New("invalid tenant name")
	// ErrUnknownFormat reports an object_format this tine cannot speak.
	ErrUnknownFormat = errors.New("unknown object format")
)

// FormatFor returns the object_format a server of hash profile a
// advertises.
func FormatFor(a objects.Algo) string {
	if a == objects.BLAKE3 {
		return FormatBLAKE3
	}
	return FormatSHA256
}

// AlgoFor returns the hash profile an advertised object_format names.
func AlgoFor(format string) (objects.Algo, error) {
	switch format {
	case FormatSHA256:
		return objects.SHA256, nil
	case FormatBLAKE3:
		return objects.BLAKE3, nil
	}
	return "", fmt.Errorf("%w %.80q", ErrUnknownFormat, format)
}

// windowsDevices are the names a tenant's first dot-segment may not be.
var windowsDevices = map[string]bool{"con": true, "prn": true, "aux": true, "nul": true}

// CheckTenant applies the tenant-name rule: ^[a-z0-9][a-z0-9._-]{0,127}$,
// not ending in '.', first dot-segment not a Windows device name.
func CheckTenant(t string) error {
	if t == "" || len(t) > 128 || strings.HasSuffix(t, ".") {
		return fmt.Errorf("%w %.140q", ErrBadTenant, t)
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return fmt.Errorf("%w %.140q", ErrBadTenant, t)
		}
	}
	first, _, _ := strings.Cut(t, ".")
	if windowsDevices[first] || len(first) == 4 && (first[:3] == "com" || first[:3] == "lpt") && first[3] >= '1' && first[3] <= '9' {
		return fmt.Errorf("%w %.140q: a Windows device name", ErrBadTenant, t)
	}
	return nil
}

// MinChunk is the smallest non-final PATCH chunk of an upload of size
// bytes: min(64 KiB, max(1, ceil(size/16))).
func MinChunk(size int64) int64 {
	m := (size + 15) / 16
	if m < 1 {
		m = 1
	}
	if m > MinChunkFloor {
		m = MinChunkFloor
	}
	return m
}
