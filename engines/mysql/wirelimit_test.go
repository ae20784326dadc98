package mysql

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestLargeCellNeverReachesTheBroker plants one cell of 15 MiB (under the
// server's default max_allowed_packet of 16 MiB) and reads it: the read is
// refused as a cell over the limit, and the engine allocates far less than
// the cell while doing so (the driver alone used to allocate a buffer of
// the cell's size and the encoder a copy). A row of cells each under the
// limit still comes back truncated, and the engine reads again afterwards.
func TestLargeCellNeverReachesTheBroker(t *testing.T) {
	needServer(t)
	db := "`" + testDB + "`."
	adminExec(t, "DROP TABLE IF EXISTS "+db+"`wire_big`")
	t.Cleanup(func() { adminExec(t, "DROP TABLE IF EXISTS "+db+"`wire_big`") })
	adminExec(t, "CREATE TABLE "+db+"`wire_big` (id INT PRIMARY KEY, t LONGTEXT, a TEXT, b TEXT, c TEXT, d TEXT, e TEXT) ENGINE=InnoDB")
	const cell = 15 << 20
	adminExec(t, "INSERT INTO "+db+"`wire_big` VALUES (1, REPEAT('x', 15728640), REPEAT('a', 60000), REPEAT('b', 60000), REPEAT('c', 60000), REPEAT('d', 60000), REPEAT('e', 60000))")

	e := openEngine(t)
	read := func(sqlText string) (*engines.Result, error) {
		v := verifyAs(t, sqlText, verifierFlavor())
		res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
		return res, err
	}
	if _, err := read("SELECT `id` FROM " + db + "`wire_big`"); err != nil {
		t.Fatalf("warm-up read: %v", err)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := read("SELECT `t` FROM " + db + "`wire_big`")
	runtime.ReadMemStats(&after)
	wantErr(t, err, engines.CodeLimit, engines.ReasonCellTooLarge)
	if got := after.TotalAlloc - before.TotalAlloc; got > cell/4 {
		t.Errorf("the read of a %d-byte cell allocated %d bytes; want under %d", cell, got, cell/4)
	}

	res, err := read("SELECT `a`, `b`, `c`, `d`, `e` FROM " + db + "`wire_big`")
	if err != nil {
		t.Fatalf("a row of cells under the limit: %v", err)
	}
	if !res.Truncated || len(res.Rows) != 0 {
		t.Errorf("a 300 KB row: truncated %v with %d rows, want truncated with none", res.Truncated, len(res.Rows))
	}
	res, err = read("SELECT LEFT(`t`, 10) FROM " + db + "`wire_big`")
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != strings.Repeat("x", 10) {
		t.Fatalf("a read after the refusal: %v %v", res, err)
	}
}
