package cqltest

import (
	"bytes"
	"encoding/binary"
	"math"
)

// Scans: a SELECT without a partition key, optionally bounded by
// token(partition key), reads partitions in token order (the ring's
// order), and each partition's rows in clustering order, as Cassandra's
// range reads do.

// tokenRange resolves the bounds of a scan to the tokens it covers, first
// to last, both included; ok is false when it covers none. As in Cassandra
// (StatementRestrictions.getPartitionKeyBoundsForTokenRestrictions), the
// minimum token as a bound stands for the start of the ring, as a lower
// bound, and for its end, as an upper bound; and a range whose start is
// above its end is empty, not wrapped around the ring.
func (st *prepared) tokenRange(vals []value) (first, last int64, ok bool, err error) {
	get := func(b *bound) (tok int64, bounded bool, err error) {
		if b == nil {
			return 0, false, nil
		}
		if b.args != nil {
			parts := make([][]byte, len(b.args))
			for i, a := range b.args {
				v := a.get(vals)
				if v.unset || v.b == nil {
					return 0, false, invalidf("Invalid null value for partition key part %s", st.table.pk[i].name)
				}
				parts[i] = v.b
			}
			return murmur3Token(serializePartitionKey(parts)), true, nil
		}
		switch v := b.val.get(vals); {
		case v.unset:
			// Cassandra fails on an unset or empty token while decoding it,
			// with a server error rather than a message of its own.
			return 0, false, invalidf("Invalid unset value for partition key token")
		case v.b == nil:
			return 0, false, invalidf("Invalid null token value")
		case len(v.b) != 8:
			return 0, false, invalidf("Invalid empty value for partition key token")
		default:
			tok = int64(binary.BigEndian.Uint64(v.b))
			return tok, tok != minToken, nil
		}
	}
	first, last = math.MinInt64, math.MaxInt64
	lo, bounded, err := get(st.tokLower)
	if err != nil {
		return 0, 0, false, err
	}
	switch {
	case !bounded:
	case st.tokLower.inclusive:
		first = lo
	case lo == math.MaxInt64:
		return 0, 0, false, nil
	default:
		first = lo + 1
	}
	hi, bounded, err := get(st.tokUpper)
	if err != nil {
		return 0, 0, false, err
	}
	switch {
	case !bounded:
	case st.tokUpper.inclusive:
		last = hi
	default:
		last = hi - 1 // hi is above the minimum
	}
	return first, last, first <= last, nil
}

// scanPage runs a scan at now (seconds): up to pageSize rows of the
// partitions whose tokens are in range, after the paging state's row.
//
// As Cassandra's range pager, it returns a paging state whenever the page
// is full, even if no row follows (with or without clustering columns);
// the state names the last row's partition and clustering key (none for
// a partition's only row or for its static row), and the next page starts
// right after it: in the same partition, or at the next one. A partition
// with static values but no live rows reads as one row of its static
// values, with nulls elsewhere, as a partition read without clustering
// restrictions does. Each partition returns at most limit rows (0: no
// limit); as a partition read does, the scan counts again, in the
// partition it resumes in, the rows up to the state's, included.
func (st *prepared) scanPage(vals []value, now int64, pageSize, limit int, state []byte) (*result, error) {
	t := st.table
	res := &result{}
	for _, s := range st.sel {
		res.cols = append(res.cols, resultColumn{s.name, s.typ})
	}
	first, last, ok, err := st.tokenRange(vals)
	if err != nil {
		return nil, err
	}
	fv, err := st.filterValues(vals)
	if err != nil {
		return nil, err
	}
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	i := t.ringSearchToken(first)
	// The partition to resume in, and the clustering key to resume after.
	var resume *partition
	var after [][]byte
	if len(state) > 0 {
		spk, sck, err := decodeState(state, t.name)
		if err != nil {
			return nil, err
		}
		if len(spk) != len(t.pk) || len(sck) != 0 && len(sck) != len(t.ck) {
			return nil, protocolError("Invalid value for the paging state")
		}
		ser := serializePartitionKey(spk)
		tok := murmur3Token(ser)
		j := t.ringSearch(tok, ser)
		if j < len(t.ring) && t.ring[j].token == tok && bytes.Equal(t.ring[j].ser, ser) {
			if len(sck) == 0 {
				j++ // the partition is done
			} else {
				resume, after = t.ring[j], sck
			}
		}
		if j > i {
			i = j
		}
	}
	if !ok {
		return res, nil
	}
	for ; i < len(t.ring) && t.ring[i].token <= last; i++ {
		p := t.ring[i]
		start, count := 0, 0
		if p == resume {
			start = p.search(t, after)
			if start < len(p.rows) && t.compareClustering(p.rows[start].key, after) == 0 {
				start++
			}
			if limit > 0 {
				for _, r := range p.rows[:start] {
					if r.live(p.deletion(t, r), now) && st.passes(p, r, fv, now) {
						count++
					}
				}
			}
		}
		n := len(res.rows)
		for _, r := range p.rows[start:] {
			if limit > 0 && count >= limit {
				break
			}
			del := p.deletion(t, r)
			if !r.live(del, now) || !st.passes(p, r, fv, now) {
				continue
			}
			res.rows = append(res.rows, st.project(p, r, del, now))
			count++
			if len(res.rows) == pageSize {
				res.state = encodeState(t.name, p.key, r.key)
				return res, nil
			}
		}
		if len(res.rows) == n && p != resume && len(st.filters) == 0 && t.hasStatic && p.static.anyCell(p.deleted, now) {
			res.rows = append(res.rows, st.project(p, nil, none, now))
			if len(res.rows) == pageSize {
				res.state = encodeState(t.name, p.key, nil)
				return res, nil
			}
		}
	}
	return res, nil
}
