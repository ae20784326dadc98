package engines

import (
	"encoding/hex"
	"encoding/json"
	"time"
)

// Limits bound a result. The zero value means the contract's limits.
type Limits struct {
	MaxRows      int // rows; 0 means 500
	MaxDataBytes int // sum of cell sizes; 0 means 256 KiB
	MaxCellBytes int // one cell; 0 means 64 KiB
}

// Contract limits.
const (
	DefaultMaxRows      = 500
	DefaultMaxDataBytes = 256 << 10
	DefaultMaxCellBytes = 64 << 10
	MaxColumns          = 64
)

func (l Limits) withDefaults() Limits {
	if l.MaxRows <= 0 {
		l.MaxRows = DefaultMaxRows
	}
	if l.MaxDataBytes <= 0 {
		l.MaxDataBytes = DefaultMaxDataBytes
	}
	if l.MaxCellBytes <= 0 {
		l.MaxCellBytes = DefaultMaxCellBytes
	}
	return l
}

// ValueEncoding is the note every result carries.
const ValueEncoding = `Non-null scalar values are exact text. Binary values use {"binary_hex":"..."}. NULL is null.`

// Binary is a binary value; it encodes as {"binary_hex": "..."}.
type Binary []byte

// MarshalJSON implements json.Marshaler.
func (b Binary) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"binary_hex": hex.EncodeToString(b)})
}

// Result is a bounded result. A cell is nil (NULL), a string (exact text)
// or Binary.
type Result struct {
	Columns       []string `json:"columns"`
	Rows          [][]any  `json:"rows"`
	Truncated     bool     `json:"truncated"`
	AffectedRows  *int64   `json:"affected_rows"`
	ElapsedMS     int64    `json:"elapsed_ms"`
	ValueEncoding string   `json:"value_encoding"`
}

// ResultBuilder bounds a result while rows are fed to it, so every engine
// applies the limits the same way. The zero value is not usable; call
// NewResultBuilder.
type ResultBuilder struct {
	lim   Limits
	res   *Result
	bytes int
	start time.Time
	full  bool
}

// NewResultBuilder starts a result with the given column names.
func NewResultBuilder(columns []string, lim Limits) *ResultBuilder {
	return &ResultBuilder{
		lim:   lim.withDefaults(),
		res:   &Result{Columns: columns, Rows: [][]any{}, ValueEncoding: ValueEncoding},
		start: time.Now(),
	}
}

// Add appends a row of cells (nil, string or Binary). It reports whether
// more rows are wanted: false once a row or data limit was reached, in which
// case the result is marked truncated and the row was not added. A cell
// over the cell limit is an error (CodeLimit).
func (b *ResultBuilder) Add(row []any) (more bool, err error) {
	if b.full {
		b.res.Truncated = true
		return false, nil
	}
	size := 0
	for _, c := range row {
		n := 0
		switch v := c.(type) {
		case string:
			n = len(v)
		case Binary:
			n = 2 * len(v)
		}
		if n > b.lim.MaxCellBytes {
			return false, NewError(CodeLimit, ReasonCellTooLarge, nil)
		}
		size += n + 8
	}
	if len(b.res.Rows) >= b.lim.MaxRows || b.bytes+size > b.lim.MaxDataBytes {
		b.full = true
		b.res.Truncated = true
		return false, nil
	}
	b.bytes += size
	b.res.Rows = append(b.res.Rows, row)
	return true, nil
}

// SetAffected records affected rows for a write.
func (b *ResultBuilder) SetAffected(n int64) { b.res.AffectedRows = &n }

// Result returns the finished result with its elapsed time.
func (b *ResultBuilder) Result() *Result {
	b.res.ElapsedMS = time.Since(b.start).Milliseconds()
	return b.res
}
