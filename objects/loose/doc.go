// Package loose is the SPEC's loose object store, the format OpenTine reads
// and writes (SPEC §2.1).
//
// On disk, under the repository's objects/ directory:
//
//	objects/<type>/<hex[0:2]>/<hex[2:64]>   one object: its envelope bytes
//	                                       (canonical header, LF, body;
//	                                       SPEC §1.2), uncompressed, mode 0444
//	objects/<type>/<hex[0:2]>/.tmp-*       an object being written
//	objects/blob/.tmp-stream-*             a large blob being streamed in
//
// <type> is one of the five object types and <hex> the 64 lowercase hex
// digits of the digest (objects.LoosePath). A file is written as a
// temporary file in its final directory, fsynced, made read-only, renamed
// to its name and the directory fsynced (write.go), so no half-written
// object is ever visible under its name; temporary files, which a crash can
// leave, never look like an object and RemoveStaleTemp deletes them. Every
// read refuses symlinks, hard links and non-regular files and re-derives
// the oid from the bytes.
package loose
