package broker

import "github.com/dbeast/dbeast/broker/internal/requests"

// What an approval gives away, as the console's request view shows it,
// is the request machine's (broker/internal/requests, console_view.go);
// these are its names for cmd, consoleapi and tray.

// PersonalColumnWords is the one, fixed list of words that flag a column
// as personal data on an approval card (requests.PersonalColumnWords).
var PersonalColumnWords = requests.PersonalColumnWords

// LooksPersonal reports whether a column's name contains one of
// PersonalColumnWords, ignoring case.
func LooksPersonal(column string) bool { return requests.LooksPersonal(column) }

type (
	// ColumnRead is one column a statement names through a table.
	ColumnRead = requests.ColumnRead
	// TableColumns is the columns a statement names through one table.
	TableColumns = requests.TableColumns
	// DocumentView is the document a read_open_file request takes text
	// from.
	DocumentView = requests.DocumentView
	// RequestOutcome is what a completed request returned, in counts only.
	RequestOutcome = requests.RequestOutcome
)

// Request returns one stored request as the console shows it.
func (b *Broker) Request(id string) (RequestInfo, bool) {
	for _, q := range b.Requests("") {
		if q.ID == id {
			return q, true
		}
	}
	return RequestInfo{}, false
}
