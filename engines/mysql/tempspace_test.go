package mysql

import (
	"context"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// sessionStatus reads one of the connection's own status counters.
func sessionStatus(t *testing.T, e *Engine, name string) int {
	t.Helper()
	var n string
	var v int
	if err := e.conn.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestReadSortWritesNoMergeFile: the statement's own ORDER BY over a
// cross join of 120,000 rows of ~200 bytes (24 MB, twelve sort buffers)
// sorts in memory, in a priority queue of the rows the result can hold,
// and merges no temporary file on the server; the result is truncated at
// its row limit as before. Without sql_select_limit the same read made
// MariaDB write and merge its sort files on disk (Sort_merge_passes).
func TestReadSortWritesNoMergeFile(t *testing.T) {
	needServer(t)
	if !serverFlavor.mariadb {
		t.Skip("the bound is MariaDB's SET STATEMENT")
	}
	db := "`" + testDB + "`."
	v := verifyAs(t, "SELECT CONCAT(`a`.`s`, `b`.`s`) AS `x` FROM "+db+"`big` AS `a` JOIN "+db+"`big` AS `b` WHERE `b`.`id` <= 200 ORDER BY `x`", verifierFlavor())
	e := openEngine(t)
	merges, queues := sessionStatus(t, e, "Sort_merge_passes"), sessionStatus(t, e, "Sort_priority_queue_sorts")
	res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || len(res.Rows) != engines.DefaultMaxRows {
		t.Errorf("truncated %v with %d rows, want truncated at %d", res.Truncated, len(res.Rows), engines.DefaultMaxRows)
	}
	if got := sessionStatus(t, e, "Sort_merge_passes") - merges; got != 0 {
		t.Errorf("the sort merged %d passes of temporary files on the server, want none", got)
	}
	if got := sessionStatus(t, e, "Sort_priority_queue_sorts") - queues; got < 1 {
		t.Errorf("no sort in a priority queue")
	}
}

// TestReadRefusedPastTempDiskTableSize: a GROUP BY whose internal
// temporary table outgrows the session's tmp_disk_table_size (lowered to
// 1 MiB here; 256 MiB in production) is refused as a limit, with a static
// reason; before the cap, MariaDB let it grow on disk (unbounded on
// 10.11). Every MySQL and MariaDB source carries the warning that the
// sorts the engine cannot bound remain.
func TestReadRefusedPastTempDiskTableSize(t *testing.T) {
	needServer(t)
	if !serverFlavor.mariadb {
		t.Skip("tmp_disk_table_size is MariaDB's")
	}
	prev := tempDiskTableSize
	tempDiskTableSize = 1 << 20
	defer func() { tempDiskTableSize = prev }()
	db := "`" + testDB + "`."
	v := verifyAs(t, "SELECT COUNT(1) FROM (SELECT CONCAT(`a`.`id`, '-', `b`.`id`, `a`.`s`) AS `x` FROM "+db+"`big` AS `a` JOIN "+db+
		"`big` AS `b` WHERE `b`.`id` <= 100 GROUP BY `x`) AS `q`", verifierFlavor())
	e := openEngine(t)
	res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
	if err == nil {
		t.Fatalf("the read ran (%v) with a temporary table past tmp_disk_table_size", res.Rows)
	}
	wantErr(t, err, engines.CodeLimit, ReasonTempSpace)

	var w engines.HealthWarner = e
	if got, err := w.HealthWarnings(context.Background()); err != nil || len(got) != 1 || got[0] != ReasonNoTempCap {
		t.Errorf("health warnings %v, want %q", got, ReasonNoTempCap)
	}
}
