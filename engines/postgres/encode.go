package postgres

import (
	"context"
	"encoding/hex"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
)

// oidBytea is the bytea type; its text form (\x followed by hex, with
// bytea_output = 'hex') is decoded into engines.Binary.
const oidBytea = 17

// maxMessageBytes bounds every message the engine accepts from the
// server (pgproto3's maximum body length, set for every connection in
// parseConfig). pgx's own default is about 1 GB, and it reads a whole
// message before the engine sees any cell of it: a 600 MB cell took the
// broker to 1.17 GB of RSS before the 64 KiB cell limit could apply
// (issue 29). 16 MiB holds any row of the contract's result (64 cells of
// at most 64 KiB, in bytea's hex text twice that) many times over, and
// the engine's own catalog answers (the function guard's EXPLAIN, FORMAT
// JSON, is one value; a view definition another). A longer message ends
// the operation as limit_exceeded (ReasonMessageTooLarge) after its
// 5-byte header, with nothing of its body read, and pgconn closes the
// connection (the rest of the message is still on the socket). One read
// then costs the broker at most about this much for the message plus one
// cell's copy (collect checks a cell's length before copying it).
const maxMessageBytes = 16 << 20

// textFormat asks for every result column in the server's text format, so
// a value is exactly what the server prints: no float conversion, no
// driver reformatting of numeric, timestamps, intervals, arrays or jsonb.
var textFormat = []int16{0}

// encodeCell converts one text-format value. A nil value is NULL.
func encodeCell(fd pgconn.FieldDescription, v []byte) (any, error) {
	if v == nil {
		return nil, nil
	}
	if fd.DataTypeOID == oidBytea {
		if len(v) < 2 || v[0] != '\\' || v[1] != 'x' {
			return nil, engines.NewError(engines.CodeFailed, engines.ReasonExecution, nil)
		}
		b := make([]byte, hex.DecodedLen(len(v)-2))
		if _, err := hex.Decode(b, v[2:]); err != nil {
			return nil, engines.NewError(engines.CodeFailed, engines.ReasonExecution, err)
		}
		return engines.Binary(b), nil
	}
	return string(v), nil
}

// columnNames returns the result's column names.
func columnNames(fds []pgconn.FieldDescription) []string {
	out := make([]string, len(fds))
	for i, fd := range fds {
		out[i] = fd.Name
	}
	return out
}

// collect feeds every row of rr into a bounded result and closes rr. Rows
// past a limit are read and dropped so the statement finishes normally.
// It returns the command tag for affected-row counts.
func collect(rr *pgconn.ResultReader, lim engines.Limits) (*engines.ResultBuilder, pgconn.CommandTag, error) {
	fds := rr.FieldDescriptions()
	b := engines.NewResultBuilder(columnNames(fds), lim)
	maxCell := lim.MaxCellBytes
	if maxCell <= 0 {
		maxCell = engines.DefaultMaxCellBytes
	}
	more := true
	var cellErr error
	for rr.NextRow() {
		if !more || cellErr != nil {
			continue
		}
		vals := rr.Values()
		row := make([]any, len(vals))
		for i, v := range vals {
			// Refused before it is copied: a text value is its length, a
			// bytea's hex text (\x and two digits a byte) two more than
			// the ResultBuilder counts for it.
			if len(v) > maxCell+2 {
				cellErr = engines.NewError(engines.CodeLimit, engines.ReasonCellTooLarge, nil)
				break
			}
			c, err := encodeCell(fds[i], v)
			if err != nil {
				cellErr = err
				break
			}
			row[i] = c
		}
		if cellErr != nil {
			continue
		}
		more, cellErr = b.Add(row)
	}
	tag, err := rr.Close()
	if err != nil {
		return nil, tag, err
	}
	if cellErr != nil {
		return nil, tag, cellErr
	}
	return b, tag, nil
}

// sameFields reports whether the row description at execution matches the
// one kept from Prepare: same names, types and modifiers.
func sameFields(a, b []pgconn.FieldDescription) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].DataTypeOID != b[i].DataTypeOID || a[i].TypeModifier != b[i].TypeModifier {
			return false
		}
	}
	return true
}

// execPrepared executes a kept statement description.
func (e *Engine) execPrepared(ctx context.Context, sd *pgconn.StatementDescription, lim engines.Limits) (*engines.Result, error) {
	rr := e.pg.ExecPrepared(ctx, sd.Name, nil, nil, textFormat)
	if !sameFields(rr.FieldDescriptions(), sd.Fields) {
		_, err := rr.Close()
		var pgErr *pgconn.PgError
		if err != nil && (ctx.Err() != nil || !errors.As(err, &pgErr) || pgErr.Code != "0A000") {
			return nil, mapErr(ctx, err)
		}
		return nil, engines.NewError(engines.CodeFailed, ReasonPlanChanged, err)
	}
	b, _, err := collect(rr, lim)
	if err != nil {
		return nil, mapErr(ctx, err)
	}
	return b.Result(), nil
}
