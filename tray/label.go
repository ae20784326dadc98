package tray

import (
	"strconv"
	"strings"
	"time"
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
	alias := clean(r.Alias, maxItemRunes)
	if alias == "" {
		alias = "(no alias)"
	}
	return alias + " — " + op
}

// clean cuts s to max runes (adding …) and replaces control, format
// (bidi) and other invisible characters with U+FFFD, so that text from
// others cannot pass for something else in a menu or a notification.
func clean(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, c := range s {
		if n == max {
			b.WriteRune('…')
			break
		}
		if !unicode.IsPrint(c) && c != ' ' || unicode.Is(unicode.Cf, c) {
			c = '\uFFFD'
		}
		b.WriteRune(c)
		n++
	}
	return b.String()
}

// connName is the person-named connection of r, the name the person
// gave the agent connection in the console.
func connName(r Request) string {
	if s := clean(r.ConnectionLabel, maxItemRunes); s != "" {
		return s
	}
	return "(unnamed connection)"
}

// SlotTitle is the menu text of a pending request's submenu: the
// person-named connection first, then the source alias and the
// operation kind.
func SlotTitle(r Request) string {
	return connName(r) + ": " + ItemText(r)
}

// Decidable reports whether the tray (menu or notification) may decide r:
// only a one-time read. Writes, full SQL and session-wide scopes are
// decided in the console, where the whole statement is shown.
func Decidable(r Request) bool {
	switch r.OpKind {
	case "read", "metadata", "document":
	default:
		return false
	}
	for _, s := range r.Scopes {
		if s == "once" {
			return true
		}
	}
	return false
}

// maxStatementLines is how many lines of a statement the menu and a
// notification show; the console shows it whole.
const maxStatementLines = 3

// StatementLines are the first non-blank lines of r's statement, each cut
// and cleaned, with a last "…" line when more follow.
func StatementLines(r Request) []string {
	var out []string
	lines := strings.Split(r.Statement, "\n")
	for _, l := range lines {
		l = strings.TrimSpace(strings.ReplaceAll(l, "\t", " "))
		if l == "" {
			continue
		}
		if len(out) == maxStatementLines {
			out = append(out, "…")
			break
		}
		out = append(out, clean(l, 72))
	}
	if len(out) == 0 {
		out = []string{"(no statement)"}
	}
	return out
}

// TablesText names the tables r touches, as the broker lists them.
func TablesText(r Request) string {
	if len(r.Tables) == 0 {
		return "none named"
	}
	shown := r.Tables
	more := ""
	if len(shown) > 4 {
		shown, more = shown[:4], " and "+strconv.Itoa(len(r.Tables)-4)+" more"
	}
	return clean(strings.Join(shown, ", "), 120) + more
}

// Details are the lines a request's submenu and notification show, now
// being the current time: connection, agent label (not verified),
// operation, tables, for full SQL the table it writes (when the broker
// can tell), statement start and age.
func Details(r Request, now time.Time) []string {
	op, ok := opNames[r.OpKind]
	if !ok {
		op = "other"
	}
	agent := clean(r.ClientLabel, maxItemRunes)
	if agent == "" {
		agent = "(none)"
	}
	out := []string{
		"Connection: " + connName(r),
		"Agent says it is: " + agent + " (not verified)",
		"Operation: " + op + " on " + clean(r.Alias, maxItemRunes),
		"Tables: " + TablesText(r),
	}
	if r.OpKind == "full" {
		w := "cannot be known before it runs"
		if len(r.WritesTables) > 0 {
			w = clean(strings.Join(r.WritesTables, ", "), 120)
		}
		out = append(out, "Writes: "+w)
	}
	for _, l := range StatementLines(r) {
		out = append(out, "  "+l)
	}
	out = append(out, "Waiting "+Age(now.Sub(r.CreatedAt))+waitLeft(r, now))
	return out
}

func waitLeft(r Request, now time.Time) string {
	if r.DecisionDeadline.IsZero() {
		return ""
	}
	return ", " + Age(r.DecisionDeadline.Sub(now)) + " left to decide"
}

// Age is a short duration for a menu: "12 s", "3 min", "1 h 5 min".
func Age(d time.Duration) string {
	s := int(d / time.Second)
	if s < 0 {
		s = 0
	}
	switch {
	case s < 60:
		return strconv.Itoa(s) + " s"
	case s < 3600:
		return strconv.Itoa(s/60) + " min"
	default:
		return strconv.Itoa(s/3600) + " h " + strconv.Itoa(s%3600/60) + " min"
	}
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
