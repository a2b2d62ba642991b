// Package memory is an object store held in memory: the reference
// implementation of the objects.Store contract, used by tests and to stage
// objects (a .tine artifact's content) before they are written anywhere.
// It owns no on-disk format.
package memory
