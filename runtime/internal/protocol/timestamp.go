package protocol

// DeleteThenInsert returns the timestamps for replacing a row whose primary
// key changed: the delete of the old row at ts, the insert of the new one
// at ts+1µs. Cassandra resolves a tie between a tombstone and a write with
// the same timestamp in favour of the tombstone, so a delete and insert of
// the same primary key at one timestamp would lose the insert; one
// microsecond later, the insert wins, even if both land in one batch.
func DeleteThenInsert(ts int64) (del, ins int64) { return ts, ts + 1 }
