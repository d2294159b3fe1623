package cqlgen

import (
	"net"
	"reflect"
	"strconv"
	"unsafe"

	"github.com/gocql/gocql"
)

// driverObservers returns the QueryObserver and BatchObserver that the
// gocql session was created with (ClusterConfig.QueryObserver and
// BatchObserver), or nil.
//
// The session runs every statement with its own observer, which gocql
// sets per query in place of the cluster's; to chain rather than replace
// them it needs the cluster's, which gocql keeps in unexported fields of
// the session and offers no way to read. gocql v1.7.0 is the last release
// of its import path, so those fields will not move under us; should they
// be missing (a fork), nothing is chained, and
// TestDriverObserversAreChained says so.
func driverObservers(s *gocql.Session) (q gocql.QueryObserver, b gocql.BatchObserver) {
	if s == nil {
		return nil, nil
	}
	v := reflect.ValueOf(s).Elem()
	if f := v.FieldByName("queryObserver"); f.IsValid() && f.Type() == reflect.TypeFor[gocql.QueryObserver]() {
		q = *(*gocql.QueryObserver)(unsafe.Pointer(f.UnsafeAddr()))
	}
	if f := v.FieldByName("batchObserver"); f.IsValid() && f.Type() == reflect.TypeFor[gocql.BatchObserver]() {
		b = *(*gocql.BatchObserver)(unsafe.Pointer(f.UnsafeAddr()))
	}
	return q, b
}

// hostPort is the address a host was reached at, as host:port.
func hostPort(h *gocql.HostInfo) string {
	if h == nil {
		return ""
	}
	return net.JoinHostPort(h.ConnectAddress().String(), strconv.Itoa(h.Port()))
}
