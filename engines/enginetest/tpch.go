package enginetest

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// TPCHTable is one table of the small TPC-H dataset: its columns (name
// and kind: "int", "dec" for decimal(15,2), "text", "date") and its rows
// (int64 for int, string for every other kind: decimals as exact text,
// dates as YYYY-MM-DD).
type TPCHTable struct {
	Name    string
	Columns [][2]string
	Rows    [][]any
}

// TPCH returns the dataset testdata/tpch.sql generates on PostgreSQL,
// computed in Go so the MySQL/MariaDB and SQLite TPC-H tests load the same
// shape without PostgreSQL: 5 regions, 25 nations, 40 suppliers, 600
// parts, 2,400 partsupp rows, 300 customers (a third without orders),
// 3,000 orders and about 12,000 lines, with parts, suppliers and customers
// shaped so every query's validation parameters select rows. It is
// deterministic.
func TPCH() []TPCHTable {
	cents := func(c int) string {
		sign := ""
		if c < 0 {
			sign, c = "-", -c
		}
		return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
	}
	pad := func(n, w int) string { return fmt.Sprintf("%0*d", w, n) }
	day0 := time.Date(1992, 1, 1, 0, 0, 0, 0, time.UTC)
	cutoff := time.Date(1995, 6, 17, 0, 0, 0, 0, time.UTC)
	ymd := func(t time.Time) string { return t.Format("2006-01-02") }

	region := TPCHTable{Name: "region", Columns: [][2]string{{"r_regionkey", "int"}, {"r_name", "text"}, {"r_comment", "text"}}}
	for i, n := range []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"} {
		region.Rows = append(region.Rows, []any{int64(i), n, fmt.Sprintf("r%d", i)})
	}
	nation := TPCHTable{Name: "nation", Columns: [][2]string{{"n_nationkey", "int"}, {"n_name", "text"}, {"n_regionkey", "int"}, {"n_comment", "text"}}}
	nations := []struct {
		name string
		r    int64
	}{{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4}, {"ETHIOPIA", 0},
		{"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2}, {"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2},
		{"JORDAN", 4}, {"KENYA", 0}, {"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2},
		{"ROMANIA", 3}, {"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1}}
	for i, n := range nations {
		nation.Rows = append(nation.Rows, []any{int64(i), n.name, n.r, "n"})
	}

	supplier := TPCHTable{Name: "supplier", Columns: [][2]string{{"s_suppkey", "int"}, {"s_name", "text"}, {"s_address", "text"},
		{"s_nationkey", "int"}, {"s_phone", "text"}, {"s_acctbal", "dec"}, {"s_comment", "text"}}}
	for s := 1; s <= 40; s++ {
		comment := fmt.Sprintf("regular deposits %d", s)
		if s%13 == 0 {
			comment = fmt.Sprintf("careful Customer slyly Complaints %d", s)
		}
		supplier.Rows = append(supplier.Rows, []any{int64(s), "Supplier#" + pad(s, 9), fmt.Sprintf("addr %d", s), int64(s * 7 % 25),
			fmt.Sprintf("%s-%d-%d-%d", pad(10+s*7%25, 2), 100+s*13%900, 100+s*31%900, 1000+s*17%9000),
			cents(s*3701%1099999 - 99999), comment})
	}

	part := TPCHTable{Name: "part", Columns: [][2]string{{"p_partkey", "int"}, {"p_name", "text"}, {"p_mfgr", "text"}, {"p_brand", "text"},
		{"p_type", "text"}, {"p_size", "int"}, {"p_container", "text"}, {"p_retailprice", "dec"}, {"p_comment", "text"}}}
	w1 := []string{"forest", "green", "blue", "almond", "antique", "khaki", "linen", "misty"}
	w2 := []string{"green", "navy", "olive", "forest", "peach", "rose"}
	t1 := []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"}
	t2 := []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}
	t3 := []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
	c1 := []string{"SM", "LG", "MED", "JUMBO", "WRAP"}
	c2 := []string{"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"}
	for p := 1; p <= 600; p++ {
		brand := fmt.Sprintf("Brand#%d%d", 1+p%5, 1+(p/5)%5)
		typ := t1[(p/3)%6] + " " + t2[(p/2)%5] + " " + t3[(p/7)%5]
		size := int64(1 + p*7%50)
		container := c1[(p/11)%5] + " " + c2[(p/4)%8]
		switch p % 40 {
		case 3:
			size, typ = 15, "ECONOMY PLATED BRASS"
		case 5:
			typ = "ECONOMY ANODIZED STEEL"
		case 7:
			brand, container, size = "Brand#23", "MED BOX", 7
		case 9:
			brand, container, size = "Brand#12", "SM BOX", 3
		case 11:
			brand, container, size = "Brand#34", "LG PACK", 12
		}
		part.Rows = append(part.Rows, []any{int64(p), w1[p%8] + " " + w2[(p/8)%6], fmt.Sprintf("Manufacturer#%d", 1+p%5), brand,
			typ, size, container, cents(90000 + (p/10)%20001 + 100*(p%1000)), fmt.Sprintf("part %d", p)})
	}

	partsupp := TPCHTable{Name: "partsupp", Columns: [][2]string{{"ps_partkey", "int"}, {"ps_suppkey", "int"}, {"ps_availqty", "int"},
		{"ps_supplycost", "dec"}, {"ps_comment", "text"}}}
	for p := 1; p <= 600; p++ {
		for i := 0; i <= 3; i++ {
			partsupp.Rows = append(partsupp.Rows, []any{int64(p), int64(1 + (p*3+i*10)%40), int64(1 + p*(i+1)*17%9999),
				cents(100 + (p*31+i*7)%100000), fmt.Sprintf("ps %d %d", p, i)})
		}
	}

	customer := TPCHTable{Name: "customer", Columns: [][2]string{{"c_custkey", "int"}, {"c_name", "text"}, {"c_address", "text"},
		{"c_nationkey", "int"}, {"c_phone", "text"}, {"c_acctbal", "dec"}, {"c_mktsegment", "text"}, {"c_comment", "text"}}}
	segs := []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"}
	for c := 1; c <= 300; c++ {
		customer.Rows = append(customer.Rows, []any{int64(c), "Customer#" + pad(c, 9), fmt.Sprintf("caddr %d", c), int64(c % 25),
			fmt.Sprintf("%s-%d-%d-%d", pad(10+c%25, 2), 100+c*7%900, 100+c*11%900, 1000+c*19%9000),
			cents(c*7919%1099999 - 99999), segs[c%5], fmt.Sprintf("customer %d", c)})
	}

	orders := TPCHTable{Name: "orders", Columns: [][2]string{{"o_orderkey", "int"}, {"o_custkey", "int"}, {"o_orderstatus", "text"},
		{"o_totalprice", "dec"}, {"o_orderdate", "date"}, {"o_orderpriority", "text"}, {"o_clerk", "text"},
		{"o_shippriority", "int"}, {"o_comment", "text"}}}
	lineitem := TPCHTable{Name: "lineitem", Columns: [][2]string{{"l_orderkey", "int"}, {"l_partkey", "int"}, {"l_suppkey", "int"},
		{"l_linenumber", "int"}, {"l_quantity", "dec"}, {"l_extendedprice", "dec"}, {"l_discount", "dec"}, {"l_tax", "dec"},
		{"l_returnflag", "text"}, {"l_linestatus", "text"}, {"l_shipdate", "date"}, {"l_commitdate", "date"},
		{"l_receiptdate", "date"}, {"l_shipinstruct", "text"}, {"l_shipmode", "text"}, {"l_comment", "text"}}}
	prios := []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	instr := []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	modes := []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	for o := 1; o <= 3000; o++ {
		od := day0.AddDate(0, 0, o*97%2405)
		n, f := 0, 0
		total := 0 // in 1e-6
		for l := 1; l <= 1+o*5%7; l++ {
			pk := 1 + (o*13+l*29)%600
			q := 1 + o*l*11%50
			ext := q * (9000 + pk%1000) * 10 // cents
			disc, tax := (o+l)%11, o*l%9
			ship := od.AddDate(0, 0, 1+o*l%121)
			receipt := ship.AddDate(0, 0, 1+o*l*3%30)
			flag := "N"
			if !receipt.After(cutoff) {
				flag = []string{"R", "A"}[(o+l)%2]
			}
			status := "F"
			if ship.After(cutoff) {
				status = "O"
			} else {
				f++
			}
			n++
			total += ext * (100 + tax) * (100 - disc)
			lineitem.Rows = append(lineitem.Rows, []any{int64(o), int64(pk), int64(1 + (pk*3+(l%4)*10)%40), int64(l),
				cents(q * 100), cents(ext), cents(disc), cents(tax), flag, status, ymd(ship),
				ymd(od.AddDate(0, 0, 30+(o+l)%61)), ymd(receipt), instr[(o+l)%4], modes[o*l%7],
				fmt.Sprintf("line %d %d", o, l)})
		}
		status := "P"
		switch f {
		case n:
			status = "F"
		case 0:
			status = "O"
		}
		comment := fmt.Sprintf("final deposits %d", o)
		if o%7 == 0 {
			comment = fmt.Sprintf("pending special foxes requests %d", o)
		}
		orders.Rows = append(orders.Rows, []any{int64(o), int64(3*((o*7%200)/2) + 1 + (o*7%200)%2), status,
			cents((total + 5000) / 10000), ymd(od), prios[o%5], "Clerk#" + pad(1+o%50, 9), int64(0), comment})
	}
	return []TPCHTable{region, nation, supplier, part, partsupp, customer, orders, lineitem}
}

// RowLines renders result rows of text cells (string or nil) as one line
// each, cells quoted and NULL spelled out, sorted: the form the TPC-H
// tests compare a verified read's rows and the server's own answer in.
func RowLines(t testing.TB, rows [][]any) []string {
	t.Helper()
	out := make([]string, len(rows))
	for i, r := range rows {
		cells := make([]string, len(r))
		for j, v := range r {
			switch s := v.(type) {
			case nil:
				cells[j] = "NULL"
			case string:
				cells[j] = fmt.Sprintf("%q", s)
			default:
				t.Fatalf("unexpected cell type %T", v)
			}
		}
		out[i] = strings.Join(cells, ",")
	}
	sort.Strings(out)
	return out
}
