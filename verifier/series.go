package verifier

import "strconv"

// MaxSeriesRows bounds the rows of PostgreSQL's calendar spine, the one
// table function a read may call in FROM (verifier/postgres/series.go):
// 27 years of days, a year of hours.
const MaxSeriesRows = 10000

// A refused table function says how to write the spine.
func init() {
	hints[Postgres]["table function"] = "only generate_series(timestamp 'YYYY-MM-DD', timestamp 'YYYY-MM-DD', interval 'N day') with constant bounds and at most " +
		strconv.Itoa(MaxSeriesRows) + " rows is allowed in FROM"
}
