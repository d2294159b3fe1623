package cqlgen

// Pattern marks an access pattern. It carries no data and takes no space
// when it is the first field of a struct: a struct gains one blank Pattern
// field per access pattern, and the field's tag describes the table that
// serves it. cqlgen reads the tags at generate time; nothing reads them at
// run time.
type Pattern struct{}

// Version is the version of this runtime package. The generator records the
// runtime version it targets in the code it emits, so a generated package
// built against a different runtime fails to compile with a clear message.
const Version = "0.1.0"
