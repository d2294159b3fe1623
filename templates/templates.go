// Package templates holds the text/template files the generator renders
// into CQL and documentation. They are embedded, so the generator binary is
// self-contained.
package templates

import "embed"

// FS holds every template, by file name.
//
//go:embed *.tmpl
var FS embed.FS
