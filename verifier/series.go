package verifier

// The PostgreSQL calendar spine (verifier/postgres/series.go) is the one
// table function a read may call in FROM; a refused one says how to write
// it.
func init() {
	hints[Postgres]["table function"] = "only generate_series(timestamp 'YYYY-MM-DD', timestamp 'YYYY-MM-DD', interval 'N day') with constant bounds and at most 10000 rows is allowed in FROM"
}
