package pack

import (
	"encoding/hex"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// MaxIndexBytes is the size of the largest valid index file (MaxObjects
// entries); a reader holding index bytes from elsewhere (a remote) refuses
// more before reading them.
const MaxIndexBytes = spIndexOverhead + int64(MaxObjects)*spEntrySize

// ReadIndex validates the bytes of pack name's index file, received from
// elsewhere than this store's directory, by the rules a Store applies when
// it opens a pack (trailer checksum, header, table order, bounds, and the
// pack checksum it binds matching name), and returns the oids it lists in
// index order. It lets a client learn what a remote pack holds before
// fetching the pack itself; the pack's objects are verified when read.
func ReadIndex(name string, data []byte, a objects.Algo) ([]objects.OID, error) {
	if int64(len(data)) > MaxIndexBytes {
		return nil, fmt.Errorf("storage pack index %s: %d bytes is too large: %w", name, len(data), ErrCorrupt)
	}
	idx, err := parseSPIndex(data, a)
	if err != nil {
		return nil, fmt.Errorf("storage pack index %s: %w: %w", name, ErrCorrupt, err)
	}
	if name != "pack-"+hex.EncodeToString(idx.packSum[:]) {
		return nil, fmt.Errorf("storage pack index %s: names another pack: %w", name, ErrCorrupt)
	}
	ids := make([]objects.OID, idx.count)
	for i := range idx.count {
		ids[i] = idx.oid(i, a)
	}
	return ids, nil
}
