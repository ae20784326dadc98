package tray

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// A desktop notification tells the person that an agent waits, since a
// request nobody sees expires unseen. An agent decides how many requests
// it makes, so notifications are coalesced: the tray keeps at most one on
// screen (each new one takes the last one's place: closed and shown anew
// when it is about other requests) and raises a new one at most
// once per notifyQuiet; requests that arrive meanwhile are gathered into
// the next. Once none of its requests waits any more it is withdrawn. A
// notification can decide only a one-time read (Decidable); everything
// else offers Review, which opens the console at the request, and says
// why (ReasonLine).

// Note is one desktop notification. Actions are key and label pairs; a
// key is the action word and the request id ("allow:req_…"), or "review"
// alone for the console's pending page.
type Note struct {
	Summary string
	Body    []string
	Actions []NoteAction
}

// NoteAction is one button of a notification.
type NoteAction struct{ Key, Label string }

// Notifier shows the tray's one notification. Show takes the place of the
// one shown before (if still shown): in place only for the same requests,
// else that one is closed. Withdraw closes the one shown, if any (its
// requests were decided or ended), and voids its actions. Invoked
// delivers the key of an action the person chose on the notification
// shown last, once the key was on screen for armDelay; keys of earlier
// notifications are dropped. Close releases the notifier's resources.
type Notifier interface {
	Show(n Note) error
	Withdraw() error
	Invoked() <-chan string
	Close() error
}

// noteOp is one change of the notification on screen: show note in the
// place of the one shown, or withdraw it.
type noteOp struct {
	note     Note
	withdraw bool
}

// notifyQuiet is the least time between two notifications.
const notifyQuiet = 4 * time.Second

// maxNoteRequests is how many requests a gathered notification names.
const maxNoteRequests = 4

// coalescer decides when the tray raises a notification and what it
// says. The zero value is ready to use.
type coalescer struct {
	seen      map[string]bool // requests already notified or held
	held      []Request       // new requests not notified yet
	lastShown time.Time
	shown     []string // requests of the notification on screen (nil: none)
}

// next takes the current pending list and returns the notification to
// raise now, if any.
func (c *coalescer) next(pending []Request, now time.Time) (Note, bool) {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	live := make(map[string]bool, len(pending))
	for _, r := range pending {
		live[r.ID] = true
		if !c.seen[r.ID] {
			c.seen[r.ID] = true
			c.held = append(c.held, r)
		}
	}
	for id := range c.seen {
		if !live[id] {
			delete(c.seen, id)
		}
	}
	// A request decided or gone before its notification is not announced;
	// held ones take their latest listing.
	byID := make(map[string]Request, len(pending))
	for _, r := range pending {
		byID[r.ID] = r
	}
	kept := c.held[:0]
	for _, r := range c.held {
		if cur, ok := byID[r.ID]; ok {
			kept = append(kept, cur)
		}
	}
	c.held = kept
	if len(c.held) == 0 || (!c.lastShown.IsZero() && now.Sub(c.lastShown) < notifyQuiet) {
		return Note{}, false
	}
	n := noteFor(c.held)
	c.shown = c.shown[:0]
	for _, r := range c.held {
		c.shown = append(c.shown, r.ID)
	}
	c.held = nil
	c.lastShown = now
	return n, true
}

// follow keeps the notification on screen true to pending when next has
// nothing new to say: once none of its requests waits any more (decided
// here, in the console or by a script, expired, cancelled, its session
// ended) it is withdrawn, so that no buttons stay on screen for a
// request that is gone. A gathered one stays while any of its requests
// waits: its one action, Review, opens the console's pending page, and
// rewriting it would raise it again (or bring back one the person
// dismissed).
func (c *coalescer) follow(pending []Request) (noteOp, bool) {
	if len(c.shown) == 0 {
		return noteOp{}, false
	}
	for _, r := range pending {
		if slices.Contains(c.shown, r.ID) {
			return noteOp{}, false
		}
	}
	c.shown = nil
	return noteOp{withdraw: true}, true
}

// noteFor is the notification for the requests in reqs (oldest first).
func noteFor(reqs []Request) Note {
	if len(reqs) == 1 {
		r := reqs[0]
		op, ok := opNames[r.OpKind]
		if !ok {
			op = "other"
		}
		n := Note{
			Summary: "dbeast: " + connName(r) + " asks for " + op,
			Body:    NoteDetails(r),
			Actions: []NoteAction{{"review:" + r.ID, "Review"}},
		}
		if Decidable(r) {
			n.Actions = append(n.Actions, NoteAction{"allow:" + r.ID, "Allow once"}, NoteAction{"deny:" + r.ID, "Deny"})
		}
		return n
	}
	n := Note{
		Summary: "dbeast: " + strconv.Itoa(len(reqs)) + " new requests wait for you",
		Actions: []NoteAction{{"review", "Review"}},
	}
	for i, r := range reqs {
		if i == maxNoteRequests {
			n.Body = append(n.Body, "and "+strconv.Itoa(len(reqs)-i)+" more")
			break
		}
		n.Body = append(n.Body, SlotTitle(r)+" · "+StatementLines(r)[0])
	}
	return n
}

// parseKey splits an action key into its word and request id.
func parseKey(key string) (word, id string) {
	word, id, _ = strings.Cut(key, ":")
	return word, id
}

// noNotifier is the Notifier where the platform has none: Show does
// nothing.
type noNotifier struct{}

func (noNotifier) Show(Note) error        { return nil }
func (noNotifier) Withdraw() error        { return nil }
func (noNotifier) Invoked() <-chan string { return nil }
func (noNotifier) Close() error           { return nil }
