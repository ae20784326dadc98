package mysql

import (
	"context"
	"database/sql"
	"strconv"
	"unicode/utf8"

	"github.com/dbeast/dbeast/engines"
)

// binaryTypes are the driver's DatabaseTypeName values for columns whose
// bytes are not text: the BINARY/VARBINARY/BLOB family (the driver names a
// column so only when its character set is binary; TEXT columns are named
// TEXT, VARCHAR, …), BIT (raw bits in the text protocol), GEOMETRY (WKB)
// and VECTOR.
var binaryTypes = map[string]bool{
	"BINARY": true, "VARBINARY": true, "TINYBLOB": true, "BLOB": true,
	"MEDIUMBLOB": true, "LONGBLOB": true, "BIT": true, "GEOMETRY": true,
	"VECTOR": true,
}

// collect reads rows into a bounded result and closes them; binary
// columns (by the driver's type name) become engines.Binary.
func collect(ctx context.Context, rows *sql.Rows, lim engines.Limits) (*engines.Result, error) {
	types, err := rows.ColumnTypes()
	if err != nil {
		rows.Close()
		return nil, err
	}
	binary := make([]bool, len(types))
	for i, t := range types {
		binary[i] = binaryTypes[t.DatabaseTypeName()]
	}
	return engines.CollectRows(ctx, rows, lim, func(col int, v any) (any, error) {
		return encodeValue(v, binary[col])
	})
}

// encodeValue turns one text-protocol value into a result cell: nil, the
// exact text, or Binary.
//
// The driver hands over the server's text as []byte for every type except
// integers (parsed into int64/uint64, formatted back exactly) and
// FLOAT/DOUBLE (parsed into float32/float64; formatted as the shortest text
// that reads back as the same value, which is the same number the server
// sent though not always the same spelling, e.g. "1e+20" for "1e20").
// Text that is not valid UTF-8 (possible for expressions of binary
// character set) is returned as Binary rather than altered.
func encodeValue(v any, binary bool) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []byte:
		if binary || !utf8.Valid(x) {
			return engines.Binary(append([]byte(nil), x...)), nil
		}
		return string(x), nil
	case string:
		if binary || !utf8.ValidString(x) {
			return engines.Binary([]byte(x)), nil
		}
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case uint64:
		return strconv.FormatUint(x, 10), nil
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	}
	return nil, engines.NewError(engines.CodeFailed, ReasonUnknownValue, nil)
}
