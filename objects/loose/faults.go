package loose

// The steps of the store's write and read paths, named in its errors
// ("object <oid>: <step>: ...") and offered to a fault hook. The write
// steps are the crash-safe protocol: create the temporary file, write it,
// fsync it, rename it over the final name (the commit point), fsync the
// directory.
const (
	stepCreateTemp = "create temp file"
	stepWrite      = "write"
	stepSync       = "sync"
	stepRename     = "rename"
	stepSyncDir    = "sync directory"
	stepOpen       = "open"
	stepRead       = "read"
	stepVerify     = "verify"
)

// faultHook is consulted before each step with the step and the path it
// works on; a non-nil error fails that step as the file system would. For
// stepWrite the failure comes after half the bytes are written (a torn
// write), and for stepVerify it damages the bytes just read, so the
// verification that follows must refuse them. Only tests set one (see
// export_test.go); a Store's hook is nil otherwise and costs one nil test
// per step.
type faultHook func(step, path string) error

// fault runs the hook of step on path, if any.
func (h faultHook) fault(step, path string) error {
	if h == nil {
		return nil
	}
	return h(step, path)
}
