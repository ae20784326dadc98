package sqlite

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dbeast/dbeast/engines"
)

// encode turns one value from the driver into a result cell: nil for NULL,
// exact text for numbers and text, engines.Binary for blobs.
//
//   - INTEGER is its decimal text, so 9223372036854775807 survives JSON.
//   - REAL is the shortest text that parses back to the same float64
//     (strconv 'g', -1), with ".0" added when that text looks like an
//     integer, so 1.0 reads "1.0" as SQLite shows it. SQLite's own printf
//     uses up to 17 significant digits and may print more digits than
//     needed (0.1 stays "0.1" here; both round-trip); we prefer the
//     shortest exact form. Infinities are "Inf" and "-Inf" as in SQLite.
//   - TEXT that is valid UTF-8 is returned as is; TEXT holding invalid
//     UTF-8 (SQLite does not check) is returned as Binary, because a JSON
//     string would silently replace the bad bytes.
//   - The driver turns TEXT in a column declared DATE, DATETIME or
//     TIMESTAMP into time.Time with no way to switch it off; the original
//     text cannot be recovered exactly, so such a value is refused
//     (ReasonInexactValue) rather than returned rounded.
func encode(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return formatReal(x), nil
	case string:
		if !utf8.ValidString(x) {
			return engines.Binary(x), nil
		}
		return x, nil
	case []byte:
		return engines.Binary(append([]byte(nil), x...)), nil
	case bool:
		if x {
			return "1", nil
		}
		return "0", nil
	}
	return nil, engines.NewError(engines.CodeFailed, ReasonInexactValue, nil)
}

// formatReal is the REAL encoding described on encode.
func formatReal(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	switch s {
	case "+Inf":
		return "Inf"
	case "-Inf", "NaN":
		return s
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}
