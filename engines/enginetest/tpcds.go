package enginetest

import (
	"fmt"
	"time"
)

// TPCDSTable is one table of the small TPC-DS dataset: its columns (name
// and kind: "int", "dec" for decimal(7,2), "text", "date") and its rows
// (int64 for int, string for every other kind: decimals as exact text,
// dates as YYYY-MM-DD; nil for NULL).
type TPCDSTable struct {
	Name    string
	Columns [][2]string
	Rows    [][]any
}

// tpcdsKinds maps the schema's one-letter kinds to TPCDSTable's.
var tpcdsKinds = map[string]string{"i": "int", "d": "dec", "t": "text", "D": "date"}

// TPCDS returns the 24 tables of a small, deterministic TPC-DS dataset (no
// dsdgen): dates 1998–2003 and every minute of a day, a few hundred rows
// per dimension and some thousands per fact table, with the values the
// queries' qualification parameters name (states, counties, cities, zip
// codes, categories, classes, brands, colors, manufacturer and manager
// ids, store names, carriers) spread over the rows, and the shapes
// several queries need: tickets of one to twenty lines, orders shipped
// from two warehouses, returns of a share of the sales with a later date,
// NULL keys in a few percent of the fact rows, spiky inventory. Every
// value is arithmetic on row numbers, so every run gives the same rows.
func TPCDS() []TPCDSTable {
	g := &tpcdsGen{tables: map[string]*TPCDSTable{}}
	for _, s := range tpcdsSchema {
		t := &TPCDSTable{Name: s.name}
		for _, c := range tpcdsColumns(s.cols) {
			t.Columns = append(t.Columns, [2]string{c[0], tpcdsKinds[c[1]]})
		}
		g.tables[s.name] = t
		g.order = append(g.order, s.name)
	}
	g.dimensions()
	g.facts()
	out := make([]TPCDSTable, 0, len(g.order))
	for _, n := range g.order {
		out = append(out, *g.tables[n])
	}
	return out
}

// tpcdsGen builds the dataset table by table.
type tpcdsGen struct {
	tables map[string]*TPCDSTable
	order  []string
}

// add appends a row to table name: vals gives some columns by name, every
// other column gets a filler value derived from the row number (text: the
// column name and number, int: a small number, dec: cents, date: a date
// in 1998–2002).
func (g *tpcdsGen) add(name string, vals map[string]any) {
	t := g.tables[name]
	n := len(t.Rows) + 1
	row := make([]any, len(t.Columns))
	for i, c := range t.Columns {
		if v, ok := vals[c[0]]; ok {
			row[i] = v
			continue
		}
		switch c[1] {
		case "int":
			row[i] = int64(mix(n, i) % 100)
		case "dec":
			row[i] = cents(int(mix(n, i) % 10000))
		case "text":
			row[i] = fmt.Sprintf("%s %d", c[0], n%37)
		case "date":
			row[i] = ymd(tpcdsDay0.AddDate(0, 0, int(mix(n, i)%1826)))
		}
	}
	if len(vals) > 0 {
		for k := range vals {
			found := false
			for _, c := range t.Columns {
				found = found || c[0] == k
			}
			if !found {
				panic("tpcds: no column " + name + "." + k)
			}
		}
	}
	t.Rows = append(t.Rows, row)
}

// mix is a deterministic hash of two small numbers (a 64-bit finalizer),
// the dataset's only source of variety.
func mix(a, b int) uint64 {
	x := uint64(a)*0x9E3779B97F4A7C15 + uint64(b)*0xC2B2AE3D27D4EB4F + 0x165667B19E3779F9
	x ^= x >> 33
	x *= 0xFF51AFD7ED558CCD
	x ^= x >> 33
	x *= 0xC4CEB9FE1A85EC53
	x ^= x >> 33
	return x
}

// pick returns a member of list chosen by the hash of (a, b).
func pick[T any](list []T, a, b int) T { return list[mix(a, b)%uint64(len(list))] }

// cents renders an amount in cents as decimal text.
func cents(c int) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

func ymd(t time.Time) string { return t.Format("2006-01-02") }

// The calendar: date_dim holds 1998-01-01 to 2003-12-31, keyed by the
// Julian day number as dsdgen keys it.
var tpcdsDay0 = time.Date(1998, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	tpcdsDays  = 6*365 + 2 // to 2003-12-31
	tpcdsJDN0  = 2450815   // Julian day number of 1998-01-01
	tpcdsSales = 5 * 365   // sales fall in 1998–2002
)

// dateSK is the date_dim key of day d (0 is 1998-01-01).
func dateSK(d int) int64 { return int64(tpcdsJDN0 + d) }
