package cqlmaintain

import "time"

// The generated Verify, Repair and Backfill of a repository take Options
// and return a Report.

// Options configure Verify, Repair and Backfill. Zero fields take
// the defaults.
type Options struct {
	// Ranges is how many token ranges each table is scanned in; default
	// 64. Concurrency is how many are scanned at once; default 4.
	Ranges, Concurrency int
	// Writes bounds the rows a backfill or adopt writes at once, across
	// its ranges. Zero adapts it: it starts at 32 and doubles while the
	// writes' latency holds, then rises by an eighth; it falls by an
	// eighth, not below 32, when the latency stays past twice its
	// baseline without more rows a second, and halves when the cluster
	// answers timed out, overloaded or unavailable (at most 256; always
	// under Rate).
	Writes int
	// Buckets is how many digests each table's rows are summed into
	// before rows are compared; default 4096. Only the rows of buckets
	// whose digests differ are compared one by one, so a verify of a
	// table in step reads each table once and holds no row.
	Buckets int
	// Hold bounds the rows of a table a Verify or Repair without a Job
	// holds at once to compare them; default 4096. Past it, the
	// mismatched buckets are split into sub-buckets by their keys'
	// hashes, and their digests compared again, until the drift is
	// narrowed to Hold rows; drift of more rows than that is compared
	// Hold at a time. Hold also sizes the splitting: at most 8
	// sub-buckets a row (16 bytes each), and drift spread over more
	// sub-buckets than that is narrowed a part at a time. Each split and
	// each batch is a scan of the table and of its source of truth: a
	// smaller Hold costs scans, not drift found.
	Hold int
	// Tables restricts the work to these tables of the entity (not its
	// source of truth); none means all of them.
	Tables []string
	// Rate bounds the rows a repair or backfill writes a second; 0 means
	// no bound. A verify or repair with a Job also counts the rows it
	// reads by key. It is the whole job's: with Shards, each worker takes
	// Rate/Shards.
	Rate int
	// Shard and Shards split a Job's token ranges among Shards workers:
	// this one runs range i when i%Shards == Shard, and records each it
	// finishes under the Job, so that a worker restarted with the same
	// Shard skips them. Zero Shards: one worker runs every range. A run
	// given its share (Shards 1 included) skips the verify after a
	// backfill or adopt, which would find the other shards' ranges not
	// yet done: verify the job when all its shards are (docs/runbook.md,
	// "Maintenance across workers").
	Shard, Shards int
	// Adopt makes Repair give every row written outside the write
	// protocol (cqlgen_version null) a version, by the protocol's
	// conditional write, and write its rows in every table, range by
	// range, resumable with Job, at most Rate rows a second. It compares
	// nothing. Safe while the application writes: a row changed since it
	// was read is read again.
	Adopt bool
	// Status makes Backfill (or an Adopt) report how far its Job has
	// come, writing nothing.
	Status bool
	// Job names a run's checkpoint: the token ranges it finished are
	// recorded in ProgressTable under this name (with the kind of run,
	// the source of truth or table, and Ranges), and a run again with it
	// skips them. Empty: no checkpoint. A Verify or Repair with a Job
	// checks range by range, each row of the source of truth against its
	// rows read by key and each row of a table against its entity read by
	// key, instead of comparing digests of whole tables: it holds one
	// range's rows at most, whatever the table's size, records the drift
	// each range found, and shards (Shard, Shards); it reads about two
	// rows by key for each row of a table.
	Job string
	// Samples is how many keys of each kind of drift a report keeps;
	// default 10.
	Samples int
	// ShowKeys keeps the sample keys' values in the report as a person
	// reads them ("email=ann@example.com"). By default each value is
	// redacted to a short stable hash of its bytes ("email=#71d4f55f"):
	// the column names and the key's shape stay, and one value reads the
	// same in every report, so that two reports can be matched without
	// showing what they hold. The hash is not a secret from whoever can
	// try the likely values (small numbers, known emails).
	ShowKeys bool
	// Progress, if set, is called about once a second, and at the end.
	Progress func(Progress)
}

// Progress is how far a Verify, Repair or Backfill has come.
type Progress struct {
	Phase        string // "scan", "compare", "repair", "backfill"
	Ranges, Done int    // token ranges in all, and done
	Rows         int64  // rows read or written so far
	Elapsed      time.Duration
}

// Rate is rows a second so far.
func (p Progress) Rate() float64 {
	if p.Elapsed <= 0 {
		return 0
	}
	return float64(p.Rows) / p.Elapsed.Seconds()
}

// ETA is the time left, from the ranges done so far; 0 when unknown.
func (p Progress) ETA() time.Duration {
	if p.Done == 0 || p.Done >= p.Ranges {
		return 0
	}
	return time.Duration(float64(p.Elapsed) * float64(p.Ranges-p.Done) / float64(p.Done))
}

// Report is what a Verify, Repair or Backfill found and did, table by
// table.
type Report struct {
	Entity string `json:"entity"`
	Source string `json:"source"` // the source of truth
	// Rows is the live rows of the source of truth read: all of them in a
	// Verify or Repair, those of the token ranges it ran in a Backfill.
	Rows int64 `json:"rows"`
	// Unversioned is how many of Rows were written outside the write
	// protocol (before cqlgen, or by another program): their
	// cqlgen_version is null. They are entities like any other; Adopt
	// gives each a version.
	Unversioned int64 `json:"unversioned,omitempty"`
	// Rows of the source of truth read and skipped, by why: deleted
	// entities (graves, kept for a while to fence late writes), and
	// partitions' static values with no row. No row is skipped for any
	// other reason.
	Graves      int64         `json:"graves"`
	StaticsOnly int64         `json:"statics_only,omitempty"`
	Tables      []TableReport `json:"tables"`
	// Adopted is how many rows written outside the protocol an Adopt
	// gave a version (and wrote in every table).
	Adopted int64 `json:"adopted,omitempty"`
	// After is the Verify run after a Backfill, or after a Repair that
	// wrote anything: what is still out of step. Nil when none ran.
	After *Report `json:"after,omitempty"`
	// Resumed is the token ranges a Backfill skipped because an earlier
	// run of its job finished them.
	Resumed int `json:"resumed_ranges,omitempty"`
	// ResumedDrift is the drift an earlier run of a Verify's or
	// Repair's job recorded in the ranges this one skipped.
	ResumedDrift int64 `json:"resumed_drift,omitempty"`
	// Shard and Shards are the worker's share of a sharded run (Options).
	Shard  int `json:"shard,omitempty"`
	Shards int `json:"shards,omitempty"`
	// Jobs is what a status found recorded under its job, across every
	// worker: one entry a kind of run (and table) that recorded a range.
	Jobs []JobStatus `json:"jobs,omitempty"`
	// Elapsed is how long it took.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// TableReport is the drift found in one table, and what was written. A
// Backfill compares nothing: it sets Inserted alone.
type TableReport struct {
	Table    string `json:"table"`
	Expected int64  `json:"expected"` // rows the source of truth implies
	Present  int64  `json:"present"`  // rows the table holds
	// Buckets whose digests differed, and the rows compared in them.
	Mismatched int   `json:"mismatched_buckets"`
	Compared   int64 `json:"compared"`
	// Held is the most rows of the table held at once to compare them
	// (at most Options.Hold, but for a sub-bucket of more rows alone);
	// Rounds is how many scans of both tables narrowing and comparing
	// the mismatched buckets took, beyond the digests' first.
	Held   int64 `json:"held,omitempty"`
	Rounds int   `json:"rounds,omitempty"`
	// Drift: rows the table lacks, rows with other values, and rows no
	// entity implies.
	Missing int64 `json:"missing"`
	Stale   int64 `json:"stale"`
	Orphans int64 `json:"orphans"`
	// Samples of each (Options.Samples), as the key's columns,
	// "name=value" separated by spaces, the values redacted unless
	// Options.ShowKeys.
	MissingKeys []string `json:"missing_keys,omitempty"`
	StaleKeys   []string `json:"stale_keys,omitempty"`
	OrphanKeys  []string `json:"orphan_keys,omitempty"`
	// Written: by Repair, the missing or stale rows written again and the
	// orphans deleted; by Backfill, every row written.
	Inserted int64 `json:"inserted"`
	Deleted  int64 `json:"deleted"`
}

// Drift is the number of rows out of step.
func (t TableReport) Drift() int64 { return t.Missing + t.Stale + t.Orphans }

// Left is the rows a Backfill or Repair left out of step, as the Verify
// after it found them; 0 when none ran.
func (r *Report) Left() int64 {
	if r.After == nil {
		return 0
	}
	return r.After.Drift()
}

// JobStatus is how far a job of one kind has come, from the ranges its
// workers recorded in ProgressTable: the rows each range read (a verify),
// or wrote (a backfill or adopt), and the drift each found.
type JobStatus struct {
	Kind   string `json:"kind"`            // verify, repair, backfill or adopt
	Table  string `json:"table,omitempty"` // a backfill's table
	Key    string `json:"key"`             // the job's key in ProgressTable
	Ranges int    `json:"ranges"`
	Done   int    `json:"done"`
	Rows   int64  `json:"rows"`
	Drift  int64  `json:"drift"`
	// First and Last are when the first and the last range done were
	// recorded (their write times).
	First time.Time `json:"first"`
	Last  time.Time `json:"last"`
}

// Rate is rows a second between the first range recorded and the last;
// 0 with fewer than two.
func (j JobStatus) Rate() float64 {
	if d := j.Last.Sub(j.First); j.Done > 1 && d > 0 {
		return float64(j.Rows) * float64(j.Done-1) / float64(j.Done) / d.Seconds()
	}
	return 0
}

// ETA is the time left at the pace the ranges were recorded so far; 0
// when done or unknown. A job no worker runs keeps its ETA: compare Last
// with the clock.
func (j JobStatus) ETA() time.Duration {
	if j.Done < 2 || j.Done >= j.Ranges {
		return 0
	}
	per := j.Last.Sub(j.First) / time.Duration(j.Done-1)
	return per * time.Duration(j.Ranges-j.Done)
}

// Drift is the number of rows out of step in every table.
func (r *Report) Drift() int64 {
	var n int64
	for _, t := range r.Tables {
		n += t.Drift()
	}
	return n
}
