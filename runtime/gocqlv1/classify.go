package gocqlv1

// Classify wraps a gocql error in the *cqldriver.DriverError the adapter
// returns for it, as the runtime receives it from a Driver: an error
// Cassandra replied with (a gocql.RequestError, a
// *gocql.RequestErrWriteTimeout...) is a server error with its protocol
// code and write type; gocql.ErrNoConnections, ErrTimeoutNoResponse and
// the like are their kinds; anything else is cqldriver.ErrorOther. nil,
// errors already classified and the context's errors are returned as
// they are. Fakes that stand in for gocql, such as cqltest, use it to
// fail calls the way the adapter would.
func Classify(err error) error { return classify(err) }
