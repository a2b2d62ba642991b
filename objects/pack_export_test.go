package objects

// NewPackingStore exposes packingStore to the external tests: a combined
// store whose every Put writes a pack and whose objects can be damaged.
func NewPackingStore(c *CombinedStore) Store { return packingStore{c} }
