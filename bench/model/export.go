package model

// The generated row binders and comparators are unexported: users reach
// them only through the repositories. The benchmarks time them alone, so
// this hand-written file lends them exported names.

// BindUser is the values the generated Insert binds for u, unset for nil
// pointers and empty collections (User has none), with write timestamp ts.
func BindUser(u *User, ts int64) []any { return userUsersRow(u, ts, true) }

// CompareBoard orders rows of board, board_16 and board_100 as their
// clustering order does (points descending, then player_id): the order
// the generated scatter-gather reads merge buckets in.
func CompareBoard(a, b *Score) int { return scoreBoard100Compare(a, b) }
