// Package shop generates the demo's SQLite shop database: customers,
// products, orders and order items, thousands of rows, the same bytes of
// data on every run (a fixed seed), so demos, docs and tests can name real
// rows.
package shop

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Sizes of the generated tables. Orders have 1 to 4 items each.
const (
	Customers = 2000
	Products  = 300
	Orders    = 6000
)

// seed fixes the generator so every run writes the same rows.
const seed = 20260728

var schema = []string{
	`CREATE TABLE customers (
		id INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		email TEXT NOT NULL UNIQUE,
		city TEXT NOT NULL,
		created_at TEXT NOT NULL
	)`,
	`CREATE TABLE products (
		id INTEGER PRIMARY KEY,
		sku TEXT NOT NULL UNIQUE,
		name TEXT NOT NULL,
		category TEXT NOT NULL,
		price_cents INTEGER NOT NULL CHECK (price_cents > 0),
		stock INTEGER NOT NULL
	)`,
	`CREATE TABLE orders (
		id INTEGER PRIMARY KEY,
		customer_id INTEGER NOT NULL REFERENCES customers(id),
		status TEXT NOT NULL,
		ordered_at TEXT NOT NULL
	)`,
	`CREATE TABLE order_items (
		order_id INTEGER NOT NULL REFERENCES orders(id),
		line INTEGER NOT NULL,
		product_id INTEGER NOT NULL REFERENCES products(id),
		quantity INTEGER NOT NULL CHECK (quantity > 0),
		unit_price_cents INTEGER NOT NULL,
		PRIMARY KEY (order_id, line)
	)`,
	`CREATE INDEX orders_customer ON orders(customer_id)`,
	`CREATE INDEX order_items_product ON order_items(product_id)`,
}

var (
	firstNames = []string{"Ada", "Bo", "Chen", "Dana", "Emil", "Fatima", "Goran", "Hana", "Ines", "Jonas", "Kofi", "Lena", "Mateo", "Nora", "Olu", "Priya", "Quinn", "Rosa", "Sven", "Tomoko", "Uma", "Viktor", "Wen", "Yara", "Zoltan"}
	lastNames  = []string{"Novak", "Okafor", "Schmidt", "Tanaka", "Silva", "Kowalski", "Haddad", "Larsen", "Moreau", "Rossi", "Nguyen", "Petrov", "Garcia", "Dvorak", "Ivanova", "Murphy", "Svoboda", "Kim", "Berg", "Costa"}
	cities     = []string{"Prague", "Lisbon", "Oslo", "Lagos", "Osaka", "Lyon", "Brno", "Porto", "Austin", "Kraków", "Seoul", "Turin", "Dublin", "Bergen", "Hanoi"}
	categories = []string{"books", "garden", "kitchen", "toys", "tools", "audio", "outdoor", "office"}
	adjectives = []string{"Classic", "Compact", "Deluxe", "Eco", "Handy", "Mini", "Pro", "Rugged", "Smart", "Vintage"}
	nouns      = []string{"Lamp", "Kettle", "Trowel", "Puzzle", "Wrench", "Speaker", "Tent", "Stapler", "Notebook", "Mug", "Drill", "Backpack"}
	statuses   = []string{"paid", "paid", "paid", "shipped", "shipped", "delivered", "delivered", "delivered", "cancelled", "refunded"}
)

// epoch is the first customer's sign-up time; later times are offsets.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Ensure creates the shop database at path unless a file is already there,
// and reports whether it created it. The database is built in a temporary
// file next to path and renamed into place, so a crash never leaves a half
// database that a later run would mistake for a finished one.
func Ensure(ctx context.Context, path string) (created bool, err error) {
	if _, err := os.Stat(path); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("shop: stat database: %w", err)
	}
	tmp := path + ".tmp"
	_ = os.Remove(tmp)
	defer os.Remove(tmp)
	if err := Generate(ctx, tmp); err != nil {
		return false, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return false, fmt.Errorf("shop: rename database: %w", err)
	}
	return true, nil
}

// Generate writes a new shop database at path, which must not exist.
func Generate(ctx context.Context, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("shop: create directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("shop: create database file: %w", err)
	}
	f.Close()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		return fmt.Errorf("shop: open database: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("shop: begin: %w", err)
	}
	defer tx.Rollback()
	for _, stmt := range schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("shop: create schema: %w", err)
		}
	}
	if err := fill(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("shop: commit: %w", err)
	}
	return nil
}

// fill inserts the rows; every random choice comes from one seeded source
// in a fixed order, which is what makes the output deterministic.
func fill(ctx context.Context, tx *sql.Tx) error {
	r := rand.New(rand.NewPCG(seed, seed))
	pick := func(s []string) string { return s[r.IntN(len(s))] }

	ins, err := tx.PrepareContext(ctx, `INSERT INTO customers (id, name, email, city, created_at) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("shop: prepare customers: %w", err)
	}
	for id := 1; id <= Customers; id++ {
		first, last := pick(firstNames), pick(lastNames)
		created := epoch.Add(time.Duration(r.IntN(365*24*60)) * time.Minute)
		email := fmt.Sprintf("%s.%s.%d@example.com", lower(first), lower(last), id)
		if _, err := ins.ExecContext(ctx, id, first+" "+last, email, pick(cities), created.Format(time.RFC3339)); err != nil {
			return fmt.Errorf("shop: insert customer: %w", err)
		}
	}
	ins.Close()

	prices := make([]int, Products+1)
	ins, err = tx.PrepareContext(ctx, `INSERT INTO products (id, sku, name, category, price_cents, stock) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("shop: prepare products: %w", err)
	}
	for id := 1; id <= Products; id++ {
		prices[id] = 199 + r.IntN(24800)
		name := pick(adjectives) + " " + pick(nouns)
		if _, err := ins.ExecContext(ctx, id, fmt.Sprintf("SKU-%05d", id), name, pick(categories), prices[id], r.IntN(500)); err != nil {
			return fmt.Errorf("shop: insert product: %w", err)
		}
	}
	ins.Close()

	insOrder, err := tx.PrepareContext(ctx, `INSERT INTO orders (id, customer_id, status, ordered_at) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("shop: prepare orders: %w", err)
	}
	defer insOrder.Close()
	insItem, err := tx.PrepareContext(ctx, `INSERT INTO order_items (order_id, line, product_id, quantity, unit_price_cents) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("shop: prepare order items: %w", err)
	}
	defer insItem.Close()
	for id := 1; id <= Orders; id++ {
		at := epoch.Add(time.Duration(365*24*60+r.IntN(2*365*24*60)) * time.Minute)
		if _, err := insOrder.ExecContext(ctx, id, 1+r.IntN(Customers), pick(statuses), at.Format(time.RFC3339)); err != nil {
			return fmt.Errorf("shop: insert order: %w", err)
		}
		lines := 1 + r.IntN(4)
		for line := 1; line <= lines; line++ {
			p := 1 + r.IntN(Products)
			if _, err := insItem.ExecContext(ctx, id, line, p, 1+r.IntN(5), prices[p]); err != nil {
				return fmt.Errorf("shop: insert order item: %w", err)
			}
		}
	}
	return nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
