// Package templates holds the text/template files the generator renders
// into CQL and documentation. They are embedded, so the generator binary is
// self-contained.
package templates

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"sync"
	"text/template"
)

// FS holds every template, by file name.
//
//go:embed *.tmpl
var FS embed.FS

var parsed = sync.OnceValues(func() (*template.Template, error) {
	return template.New("").ParseFS(FS, "*.tmpl")
})

// Render executes the template of the given file name on data. The
// templates are parsed once, on first use.
func Render(name string, data any) ([]byte, error) {
	t, err := parsed()
	if err != nil {
		return nil, fmt.Errorf("parsing templates: %w", err)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// Execute executes the template of the given name on data, writing to w.
func Execute(w io.Writer, name string, data any) error {
	t, err := parsed()
	if err != nil {
		return fmt.Errorf("parsing templates: %w", err)
	}
	if err := t.ExecuteTemplate(w, name, data); err != nil {
		return fmt.Errorf("rendering %s: %w", name, err)
	}
	return nil
}
