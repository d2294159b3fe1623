package cqldriver

import (
	"testing"
)

type selfEncoded struct{}

func (selfEncoded) MarshalCQLValue(*Type) ([]byte, error) { return []byte{1}, nil }

type selfDecoded struct{ got []byte }

func (d *selfDecoded) UnmarshalCQLValue(_ *Type, b []byte) error { d.got = b; return nil }

// The runtime's own values reach the adapter's conversion; the caller's
// slice is never written, and a slice with none of them is handed on
// as it is.
func TestConvertValuesAndDests(t *testing.T) {
	mark := func(any) any { return "converted" }
	plain := []any{"a", 1, []byte("b")}
	if got := ConvertValues(plain, mark); &got[0] != &plain[0] {
		t.Error("values with none of the runtime's own were copied")
	}
	mixed := []any{"a", Unset, Encoded{1}, selfEncoded{}, 2}
	got := ConvertValues(mixed, mark)
	want := []any{"a", "converted", "converted", "converted", 2}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("value %d: %v, want %v", i, got[i], want[i])
		}
	}
	if !IsUnset(mixed[1]) {
		t.Error("the caller's values were written")
	}
	var s string
	d := &selfDecoded{}
	ds := []any{&s, d}
	if out := ConvertDests(ds, mark); out[0] != any(&s) || out[1] != "converted" || ds[1] != any(d) {
		t.Errorf("dests %v from %v", out, ds)
	}
	plainDests := []any{&s}
	if out := ConvertDests(plainDests, mark); &out[0] != &plainDests[0] {
		t.Error("dests with no ValueUnmarshaler were copied")
	}
	// An adapter's own needs: here the *string destination alone.
	isString := func(v any) bool { _, ok := v.(*string); return ok }
	if out := ConvertWhere(ds, isString, mark); out[0] != "converted" || out[1] != any(d) || ds[0] != any(&s) {
		t.Errorf("ConvertWhere: %v from %v", out, ds)
	}
}
