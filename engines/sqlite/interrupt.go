package sqlite

import (
	"context"
	"reflect"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// The driver interrupts a statement when its context ends only while the
// call that starts it runs (the first step, for a query); later steps,
// reached through rows.Next, are not watched. A read whose first row comes
// quickly and whose next one takes minutes would then outlive its
// deadline and hold the broker's concurrency slot. The engine therefore
// watches the context itself while it drains rows and calls
// sqlite3_interrupt on the connection, as the driver's own watcher does.
//
// The driver does not export the connection's sqlite3* handle; it is read
// once from the driver connection's "db" field by reflection (reading an
// unexported integer field is allowed; nothing is written). If a driver
// version renames the field, dbHandle returns 0 and reads fall back to the
// driver's own first-step interruption and the between-rows context check.

// dbHandle returns the sqlite3* of a driver connection, or 0.
func dbHandle(dc any) uintptr {
	v := reflect.ValueOf(dc)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return 0
	}
	v = v.Elem()
	if v.Kind() != reflect.Struct {
		return 0
	}
	f := v.FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Uintptr {
		return 0
	}
	return uintptr(f.Uint())
}

// watch interrupts the handle's statement once ctx ends, until the
// returned stop is called. stop waits for the watcher, so no interrupt can
// reach a later statement. SQLite clears the interrupt flag when no
// statement is active, so an interrupt that arrives just as the statement
// ends does not affect the next one.
func (h *handle) watch(ctx context.Context) (stop func()) {
	if h.db3 == 0 || ctx.Done() == nil {
		return func() {}
	}
	quit := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-ctx.Done():
			tls := libc.NewTLS()
			sqlite3.Xsqlite3_interrupt(tls, h.db3)
			tls.Close()
		case <-quit:
		}
	}()
	return func() {
		close(quit)
		<-exited
	}
}
