package main

import (
	"bytes"
	"errors"
	"os"
)

// The markers around the generated tables in README.md: make bench
// (run.sh) rewrites what lies between them, and nothing else.
const (
	beginMarker = "<!-- benchtable begin -->"
	endMarker   = "<!-- benchtable end"
)

// splice returns readme with the lines between its markers replaced by
// tables.
func splice(readme, tables []byte) ([]byte, error) {
	b := bytes.Index(readme, []byte(beginMarker))
	e := bytes.Index(readme, []byte(endMarker))
	if b < 0 || e < 0 || e < b {
		return nil, errors.New("README.md has no " + beginMarker + " … " + endMarker + " … --> markers, or they are out of order")
	}
	start := b + len(beginMarker) + 1 // after the marker's line
	var out bytes.Buffer
	out.Write(readme[:start])
	out.Write(bytes.TrimRight(tables, "\n"))
	out.WriteString("\n")
	out.Write(readme[e:])
	return out.Bytes(), nil
}

// spliceFile rewrites the README at path with tables, in place.
func spliceFile(path string, tables []byte) error {
	readme, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := splice(readme, tables)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}
