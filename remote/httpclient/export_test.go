package httpclient

// TransportOf wraps c as a Transport, so tests can give the client
// Options that remote.Open does not pass (Options.CompressFrames).
func TransportOf(c *Client) *Transport { return &Transport{c: c} }

// StoredLen exposes storedLen.
var StoredLen = storedLen
