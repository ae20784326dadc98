package verifier

import "strings"

// The cost model (issue 29). A read the allowlist accepts can still cost
// a server far more than its text suggests, through work the server does
// per distinct constant or per aggregate before any row is read or the
// statement timeout can act. Alongside the expression-growth bound
// (MaxExpressionGrowth) each dialect's walker counts three things per
// query and refuses the query, with a static code naming the bound, once
// a count passes it:
//
//   - distinct date/time and time-zone literal strings: PostgreSQL loads
//     the zone data of every distinct zone name its date/time input
//     functions meet (about 24 KB each) into a cache that lives as long as
//     the connection; 54 KB of SQL added 69 MB to one backend. The other
//     dialects have no such cache but parse each literal the same way, so
//     the same bound holds for them (it costs no ordinary read anything);
//   - growth aggregates (string_agg, array_agg, group_concat, JSON
//     aggregation): each may hold up to the server's value limit (1 GB on
//     PostgreSQL) per group, and nothing else limits how many sit side by
//     side (four took a backend to 1.5 GB in 3 s);
//   - grouping sets after expansion (CUBE of n items is 2^n sets, ROLLUP
//     of n is n+1, GROUPING SETS adds its members, a GROUP BY list
//     multiplies its items): PostgreSQL expands them before its own check
//     of 4,096, so ~1,400 CUBEs in 44 KB of SQL cost a gigabyte of
//     server memory.
//
// The bounds are far above what the corpus, TPC-H and TPC-DS need (TPC-DS
// groups by ROLLUPs of at most five items, six sets) and far below the
// cost the findings measured.
const (
	// MaxDateTimeStrings bounds the distinct date/time and zone literal
	// strings of one query: at most 256 × 24 KB ≈ 6 MB of zone data.
	MaxDateTimeStrings = 256
	// MaxGrowthAggregates bounds the growth aggregate calls of one query.
	MaxGrowthAggregates = 4
	// MaxGroupingSets bounds the grouping sets of one query after
	// expansion, summed over its query blocks: CUBE of eight items, a
	// sixteenth of PostgreSQL's own limit.
	MaxGroupingSets = 256
)

// The cost model's refusal codes.
const (
	CodeTooManyDateTimeStrings  Code = "too_many_datetime_strings"
	CodeTooManyGrowthAggregates Code = "too_many_growth_aggregates"
	CodeTooManyGroupingSets     Code = "too_many_grouping_sets"
)

func init() {
	messages[CodeTooManyDateTimeStrings] = "a query may use at most 256 distinct date/time or time zone strings"
	messages[CodeTooManyGrowthAggregates] = "a query may call at most 4 string, array or JSON aggregates"
	messages[CodeTooManyGroupingSets] = "a query may group by at most 256 grouping sets after CUBE and ROLLUP are expanded"
}

// Cost tallies one query's cost-model counts. The zero Cost is ready; it
// is used for one statement and is not safe for concurrent use.
type Cost struct {
	dateTime map[string]bool
	aggs     int
	sets     int64
}

// DateTimeString counts s as a date/time or zone literal string. Strings
// are counted once whatever their case: PostgreSQL's zone cache folds
// names to upper case.
func (c *Cost) DateTimeString(s string) error {
	k := strings.ToUpper(s)
	if c.dateTime[k] {
		return nil
	}
	if c.dateTime == nil {
		c.dateTime = map[string]bool{}
	}
	c.dateTime[k] = true
	if len(c.dateTime) > MaxDateTimeStrings {
		return Refuse(CodeTooManyDateTimeStrings)
	}
	return nil
}

// GrowthAggregate counts one growth aggregate call.
func (c *Cost) GrowthAggregate() error {
	c.aggs++
	if c.aggs > MaxGrowthAggregates {
		return Refuse(CodeTooManyGrowthAggregates)
	}
	return nil
}

// GroupingSets adds the expanded grouping sets of one query block.
func (c *Cost) GroupingSets(n int64) error {
	c.sets += n
	if n > MaxGroupingSets || c.sets > MaxGroupingSets {
		return Refuse(CodeTooManyGroupingSets)
	}
	return nil
}

// GroupingSets arithmetic saturates just past MaxGroupingSets, so a CUBE
// of a thousand items never overflows.

// SetsProduct returns a×b, saturated.
func SetsProduct(a, b int64) int64 { return min(a*b, MaxGroupingSets+1) }

// SetsSum returns a+b, saturated.
func SetsSum(a, b int64) int64 { return min(a+b, MaxGroupingSets+1) }

// SetsCube returns 2^n, saturated.
func SetsCube(n int) int64 {
	if n > 10 {
		return MaxGroupingSets + 1
	}
	return min(int64(1)<<n, MaxGroupingSets+1)
}
