// Package combined is the repository's object store: the loose store
// (objects/loose, the SPEC's format) in front of tine's storage packs
// (objects/pack). It owns no file format of its own; it decides where an
// object goes (loose files for single puts and small batches, one new pack
// for a large batch) and reads loose first, then packs.
package combined
