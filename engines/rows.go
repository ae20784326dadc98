package engines

import (
	"context"
	"database/sql"
)

// CollectRows drains rows from a database/sql driver into a bounded result
// and closes them. encode turns the value scanned from column col into a
// cell (nil, exact text or Binary); it is the engine's only say in the
// loop, so every database/sql engine applies the limits the same way.
// ctx is checked between rows, so a cancelled read stops fetching even
// when the driver keeps delivering buffered rows.
func CollectRows(ctx context.Context, rows *sql.Rows, lim Limits, encode func(col int, v any) (any, error)) (*Result, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	b := NewResultBuilder(cols, lim)
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]any, len(cols))
		for i, v := range vals {
			c, err := encode(i, v)
			if err != nil {
				return nil, err
			}
			row[i] = c
		}
		more, err := b.Add(row)
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	return b.Result(), nil
}
