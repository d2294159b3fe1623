package helpdesk

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Article is a knowledge-base article of an organisation. Agents find
// articles by tag or by how often they are read, reads that are rare
// next to the desk's ticket traffic: storage-attached indexes on the
// articles table serve them, restricted to the tenant's partition,
// rather than a table per question. Deleted articles are rare, so the
// table keeps its tombstones three days, a repair cycle's worth.
type Article struct {
	_ cqlgen.Pattern `table:"articles" pk:"org_id" ck:"article_id" size:"rows=10k, rowbytes=2k" gc_grace:"3d" doc:"an organisation's knowledge-base articles"`
	_ cqlgen.Pattern `index:"articles_by_tag" col:"tags" pk:"org_id" name:"ArticlesTagged" doc:"an organisation's articles with a tag"`
	_ cqlgen.Pattern `index:"articles_by_views" col:"views" match:"range" pk:"org_id" name:"ArticlesByViews" doc:"an organisation's articles read between two counts of views"`

	OrgID     string     `db:"org_id"`
	ArticleID gocql.UUID `db:"article_id" cql:"timeuuid"`
	Title     string     `db:"title"`
	Tags      []string   `db:"tags" cql:"set<text>"`
	Views     int64      `db:"views"`
	UpdatedAt time.Time  `db:"updated_at"`
	Body      string     `db:"body"`
}

// AuditEvent is one entry of an organisation's audit log: who did what,
// kept 30 days. It is a time series that expires, a partition a day, so
// TimeWindowCompactionStrategy with one-day windows drops a whole day's
// SSTable once its rows have expired, 30 windows a TTL.
type AuditEvent struct {
	_ cqlgen.Pattern `table:"audit_log,canonical,immutable" pk:"org_id" ck:"at desc, event_id" bucket:"day(at)" ttl:"30d" compaction:"twcs(1d)" doc:"an organisation's audit events, newest first, a partition a day"`

	OrgID   string     `db:"org_id"`
	At      time.Time  `db:"at"`
	EventID gocql.UUID `db:"event_id" cql:"timeuuid"`
	Actor   string     `db:"actor"` // an agent's id
	Action  string     `db:"action"`
}
