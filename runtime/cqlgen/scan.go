package cqlgen

// ScanOptions are the options of a scan method, the typed full-table read
// a pattern declares with the table option scan (table:"tracks,scan"):
// ScanTracks reads every row of tracks, a page at a time, over token
// ranges (docs/repositories.md, "Scans").
type ScanOptions struct {
	// Limit is the most rows a page returns (0: DefaultLimit), at most
	// the repository's MaxLimit.
	Limit int
	// Cursor continues the scan after the previous page of the same
	// share ("": from the share's start). It holds the share, so a
	// worker that crashed resumes from the last cursor it saved; it is
	// refused (an *InputError, ErrInvalidCursor) by another table's
	// scan, with another share, and when tampered with.
	Cursor string
	// Split and Of make this scan one share of a scan split between Of
	// workers: the Split-th (0 ≤ Split < Of) of Of equal ranges of the
	// token ring, which together cover the ring exactly once. Of 0 (or
	// 1) scans the whole ring.
	Split, Of int
}

// WithScanRate bounds the rows the repository's scans read, all its
// scan calls and goroutines together, to rowsPerSecond (0: no bound),
// so that a batch job leaves the cluster to production traffic. A scan
// waits, before each request, until the rows the request asks for fit
// the rate. Options.ScanLimiter takes a limiter of your own instead.
func WithScanRate(rowsPerSecond int) Option {
	return func(o *Options) { o.ScanRate, o.ScanLimiter = rowsPerSecond, nil }
}
