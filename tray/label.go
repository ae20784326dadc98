package tray

import (
	"strconv"
	"strings"
	"unicode"
)

// maxItemRunes bounds a menu item's text; longer aliases are cut.
const maxItemRunes = 48

// opNames are the tray's own words for the console API's operation kinds;
// an unknown kind is shown as "other", never as the broker sent it.
var opNames = map[string]string{
	"read": "read", "insert": "write (insert)", "update": "write (update)", "delete": "write (delete)",
	"full": "full SQL", "metadata": "metadata", "document": "document read",
}

// ItemText is the menu text of one pending request: alias, a dash and the
// operation kind. Control, format (bidi) and other invisible characters
// in the alias become U+FFFD, so a menu entry cannot be made to look like
// something else.
func ItemText(r Request) string {
	op, ok := opNames[r.OpKind]
	if !ok {
		op = "other"
	}
	var b strings.Builder
	n := 0
	for _, c := range r.Alias {
		if n == maxItemRunes {
			b.WriteRune('…')
			break
		}
		if !unicode.IsPrint(c) && c != ' ' || unicode.Is(unicode.Cf, c) {
			c = '\uFFFD'
		}
		b.WriteRune(c)
		n++
	}
	alias := b.String()
	if alias == "" {
		alias = "(no alias)"
	}
	return alias + " — " + op
}

// Summary is the tray's title and tooltip for n pending requests.
func Summary(n int) (title, tooltip string) {
	switch n {
	case 0:
		return "", "dbeast: nothing to approve"
	case 1:
		return "1", "dbeast: 1 request waits for approval"
	default:
		return strconv.Itoa(n), "dbeast: " + strconv.Itoa(n) + " requests wait for approval"
	}
}
