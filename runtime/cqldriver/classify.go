package cqldriver

import "sync/atomic"

var classifiers atomic.Pointer[[]func(error) error] // copied on write, under codecsMu

// RegisterClassifier makes a driver adapter's classification of its
// driver's errors available to Classify. Adapters call it from init,
// beside RegisterCodec; classify must return an error it does not know
// as a *DriverError of kind ErrorOther, or as it is.
func RegisterClassifier(classify func(error) error) {
	codecsMu.Lock()
	defer codecsMu.Unlock()
	var old []func(error) error
	if l := classifiers.Load(); l != nil {
		old = *l
	}
	next := append(append([]func(error) error(nil), old...), classify)
	classifiers.Store(&next)
}

// Classify returns err classified, as a *DriverError, by the first
// registered adapter that recognises it as one of its driver's errors,
// or err as it is when none does (or it is classified already). Fakes
// that stand in for a driver, such as cqltest, use it to fail calls with
// a driver's errors the way the driver's adapter would.
func Classify(err error) error {
	if err == nil || driverError(err) != nil {
		return err
	}
	l := classifiers.Load()
	if l == nil {
		return err
	}
	for _, f := range *l {
		if d := driverError(f(err)); d != nil && d.Kind != ErrorOther {
			return d
		}
	}
	return err
}
