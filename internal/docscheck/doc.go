// Package docscheck holds only a test: that the repository's documentation
// names no repository file or directory that does not exist.
package docscheck
