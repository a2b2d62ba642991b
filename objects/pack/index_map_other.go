//go:build !unix

package pack

// mapSPIndexFile reads an index file whole where mappings are not used.
func mapSPIndexFile(path string) ([]byte, func() error, error) {
	data, err := readSPIndexFile(path)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}
