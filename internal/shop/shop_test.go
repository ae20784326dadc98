package shop

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestEnsureDeterministic builds the database twice and compares the row
// counts and a digest of every table, then checks Ensure leaves an existing
// file alone.
func TestEnsureDeterministic(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var digests [2]map[string]string
	for i := range 2 {
		p := filepath.Join(dir, "shop"+string(rune('a'+i))+".db")
		created, err := Ensure(ctx, p)
		if err != nil || !created {
			t.Fatalf("Ensure: created=%v err=%v", created, err)
		}
		digests[i] = digest(t, p)
		created, err = Ensure(ctx, p)
		if err != nil || created {
			t.Fatalf("second Ensure: created=%v err=%v", created, err)
		}
	}
	for table, d := range digests[0] {
		if digests[1][table] != d {
			t.Errorf("table %s differs between runs", table)
		}
	}
	if len(digests[0]) != 4 {
		t.Fatalf("got %d tables, want 4", len(digests[0]))
	}
}

func digest(t *testing.T, path string) map[string]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := map[string][2]int{
		"customers":   {Customers, Customers},
		"products":    {Products, Products},
		"orders":      {Orders, Orders},
		"order_items": {Orders, 4 * Orders},
	}
	out := map[string]string{}
	for table, bounds := range want {
		var n int
		var sum string
		q := "SELECT count(*), group_concat(x, ',') FROM (SELECT " + columnsSum(table) + " AS x FROM " + table + ")"
		if err := db.QueryRow(q).Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		if n < bounds[0] || n > bounds[1] {
			t.Errorf("%s has %d rows, want %d..%d", table, n, bounds[0], bounds[1])
		}
		out[table] = sum
	}
	return out
}

func columnsSum(table string) string {
	switch table {
	case "customers":
		return "id || name || email || city || created_at"
	case "products":
		return "id || sku || name || category || price_cents || stock"
	case "orders":
		return "id || customer_id || status || ordered_at"
	}
	return "order_id || line || product_id || quantity || unit_price_cents"
}
