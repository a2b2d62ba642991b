//go:build !unix

package plumbing

import "os"

// openPathInput opens one --stdin-paths input.
func openPathInput(path string) (pathInput, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return osInput{f}, nil
}

// osInput is an input opened through package os.
type osInput struct{ *os.File }

// stat implements pathInput.
func (f osInput) stat() (inputStat, error) {
	st, err := f.Stat()
	if err != nil {
		return inputStat{}, err
	}
	return inputStat{dir: st.IsDir(), regular: st.Mode().IsRegular(), size: st.Size()}, nil
}

// close implements pathInput.
func (f osInput) close() { _ = f.Close() }
