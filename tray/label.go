package tray

import (
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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

// clean cuts s to max runes (adding …) and replaces hidden characters
// with U+FFFD (see hidden), so that text from others cannot pass for
// something else in a menu or a notification.
func clean(s string, max int) string {
	var b strings.Builder
	n := 0
	var base rune = -1 // the last character that is no combining mark
	for _, c := range s {
		if n == max {
			b.WriteRune('…')
			break
		}
		mark := unicode.Is(unicode.M, c)
		if hidden(c) || mark && base < 0x80 {
			c = '\uFFFD'
		}
		if !mark {
			base = c
		}
		b.WriteRune(c)
		n++
	}
	return b.String()
}

// hiddenExtra are characters that draw nothing (or look like a space)
// though Unicode files them as letters, marks or symbols: the combining
// grapheme joiner, the Hangul fillers, the Mongolian vowel separator, the
// braille blank, variation selectors and tag characters.
var hiddenExtra = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x034f, Hi: 0x034f, Stride: 1},
		{Lo: 0x115f, Hi: 0x1160, Stride: 1},
		{Lo: 0x180e, Hi: 0x180e, Stride: 1},
		{Lo: 0x2800, Hi: 0x2800, Stride: 1},
		{Lo: 0x3164, Hi: 0x3164, Stride: 1},
		{Lo: 0xfe00, Hi: 0xfe0f, Stride: 1},
		{Lo: 0xffa0, Hi: 0xffa0, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0xe0000, Hi: 0xe007f, Stride: 1},
		{Lo: 0xe0100, Hi: 0xe01ef, Stride: 1},
	},
}

// hidden reports whether c must not be shown as itself: the console's
// rules (broker/consoleapi/static/app.js, escapeFor). Controls, format
// characters (bidi, zero-width), private use, surrogates, unassigned
// code points, line and paragraph separators, every space but U+0020 and
// hiddenExtra. A combining mark on an ASCII character (U+0338 over "="
// drawn as "≠") is handled by clean.
func hidden(c rune) bool {
	if c == ' ' {
		return false
	}
	return !unicode.IsPrint(c) || unicode.In(c, unicode.Cf, unicode.Co, unicode.Cs, unicode.Zs, unicode.Zl, unicode.Zp, hiddenExtra)
}

// menuLabel is text as a menu label: on Linux the menu goes over
// com.canonical.dbusmenu, where "_" marks the next letter as the access
// key and is not drawn, so a literal "_" is written "__".
func menuLabel(s string) string {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return s
	}
	return strings.ReplaceAll(s, "_", "__")
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
// only a one-time read whose tables and statement the tray shows uncut
// (tablesShownWhole, statementShownWhole). Writes, full SQL,
// session-wide scopes and anything cut are decided in the console, where
// the whole statement is shown; ReviewReason says which.
func Decidable(r Request) bool { return ReviewReason(r) == "" }

// ReviewReason is why r can be reviewed only in the console, "" when the
// tray may decide it (Decidable). The reasons are the tray's own static
// words, never text of the request, so that a person who sees only
// Review knows it is by design and not a fault.
func ReviewReason(r Request) string {
	switch r.OpKind {
	case "read", "metadata", "document":
	case "insert", "update", "delete":
		return "a write is decided only in the console"
	case "full":
		return "full SQL is decided only in the console"
	default:
		return "this kind of request is decided only in the console"
	}
	if !tablesShownWhole(r) {
		return "it names more tables than the tray can show"
	}
	if !statementShownWhole(r) {
		return "its statement is longer than the tray can show"
	}
	for _, s := range r.Scopes {
		if s == "once" {
			return ""
		}
	}
	return "the broker offers no one-time allow for it"
}

// ReasonLine is the menu and notification line for ReviewReason(r), ""
// when the tray may decide r.
func ReasonLine(r Request) string {
	if why := ReviewReason(r); why != "" {
		return "Review in the console: " + why
	}
	return ""
}

// maxStatementLines is how many lines of a statement the menu and a
// notification show, each at most maxLineRunes; the console shows it
// whole.
const (
	maxStatementLines = 3
	maxLineRunes      = 72
	maxTables         = 4   // tables TablesText names
	maxTablesRunes    = 120 // and at most this long
)

// tablesShownWhole reports whether TablesText names all of r's tables
// uncut.
func tablesShownWhole(r Request) bool {
	return len(r.Tables) <= maxTables && utf8.RuneCountInString(strings.Join(r.Tables, ", ")) <= maxTablesRunes
}

// statementShownWhole reports whether StatementLines shows r's
// statement uncut (blank lines and the indentation of a line aside).
func statementShownWhole(r Request) bool {
	n := 0
	for _, l := range strings.Split(r.Statement, "\n") {
		l = strings.TrimSpace(strings.ReplaceAll(l, "\t", " "))
		if l == "" {
			continue
		}
		n++
		if n > maxStatementLines || utf8.RuneCountInString(l) > maxLineRunes {
			return false
		}
	}
	return true
}

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
		out = append(out, clean(l, maxLineRunes))
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
	if len(shown) > maxTables {
		shown, more = shown[:maxTables], " and "+strconv.Itoa(len(r.Tables)-maxTables)+" more"
	}
	return clean(strings.Join(shown, ", "), maxTablesRunes) + more
}

// Details are the lines a request's submenu shows, now being the
// current time: requestLines and the age with the time left to decide
// (the menu is redrawn at every poll, so both stay current).
func Details(r Request, now time.Time) []string {
	return append(requestLines(r), "Waiting "+Age(now.Sub(r.CreatedAt))+waitLeft(r, now))
}

// NoteDetails are the lines of a request's notification: requestLines,
// when it was asked and when it must be decided as clock times (a
// notification is not redrawn, so it shows no countdown that would
// freeze), and ReasonLine.
func NoteDetails(r Request) []string {
	out := requestLines(r)
	when := "Asked at " + clock(r.CreatedAt)
	if !r.DecisionDeadline.IsZero() {
		when += ", decide by " + clock(r.DecisionDeadline)
	}
	out = append(out, when)
	if l := ReasonLine(r); l != "" {
		out = append(out, l)
	}
	return out
}

// clock is t as the person's local time of day.
func clock(t time.Time) string { return t.Local().Format("15:04:05") }

// requestLines are what the tray shows of r: connection, agent label
// (not verified), operation, tables, for full SQL the table it writes
// (when the broker can tell) and the statement's start.
func requestLines(r Request) []string {
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
