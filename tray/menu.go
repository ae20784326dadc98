package tray

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// menu is the tray's menu and what its event loop knows. The items are
// made once by newMenu; the loop (run) handles every click and poll, one
// at a time, in the order they arrived, and is the only goroutine that
// changes an item. Besides the loop, one forwarder goroutine per item
// reads its clicks (see forwardClicks), showNotes shows the
// notifications, and Open document… runs on its own goroutine (a file
// dialog can stay open for minutes; AddOpenDocumentItem).
type menu struct {
	c   *Client
	log *slog.Logger

	header                           *menuItem
	open, stopAll, start, stop, quit *menuItem

	slotsMu sync.Mutex // guards each slot's id and assigned
	slots   []*slot

	// clicks queues the events of the forwarders and of the notifier
	// for the loop.
	clicks chan event
	// notes holds the one notification change waiting to be made (see
	// postNote).
	notes chan noteOp

	// Owned by the loop.
	co        coalescer
	lastState string // "start", "ok", "token", "down" or "error"
	server    string // what serverState last showed: "running", "stopped", "unknown" ("": nothing yet)
}

// slot is one request entry of the menu: a submenu with the request's
// details and its actions.
type slot struct {
	item                *menuItem
	info                []*menuItem
	reason              *menuItem // why only Review is offered (ReasonLine)
	allow, deny, review *menuItem

	// Guarded by menu.slotsMu: read by the click forwarders.
	id       string
	assigned time.Time
}

// newMenu adds the tray's items, all at once and in menu order (systray
// cannot insert an item later), and starts their click forwarders. It
// must run on the UI thread (onReady).
func newMenu(c *Client, log *slog.Logger) *menu {
	m := &menu{c: c, log: log, lastState: "start", clicks: make(chan event, 16), notes: make(chan noteOp, 1)}
	uiSetIcon(iconIdle)
	uiSetTooltip("dbeast")
	m.header = uiAddMenuItem("Nothing to approve", "Pending approvals")
	m.header.Disable()
	m.slots = make([]*slot, maxMenuRequests)
	for i := range m.slots {
		s := &slot{item: uiAddMenuItem("", "A request waiting for your decision")}
		for range maxDetailLines {
			l := s.item.AddSubMenuItem("", "")
			l.Disable()
			s.info = append(s.info, l)
		}
		s.reason = s.item.AddSubMenuItem("", "Why this request is decided in the console")
		s.reason.Disable()
		s.allow = s.item.AddSubMenuItem("Allow once", "Run this read once; nothing more is granted")
		s.deny = s.item.AddSubMenuItem("Deny", "Refuse this request")
		s.review = s.item.AddSubMenuItem("Review in console…", "Open the console at this request")
		s.item.Hide()
		m.slots[i] = s
	}
	uiAddSeparator()
	m.open = uiAddMenuItem("Open console", "Open the approval console in the browser")
	AddOpenDocumentItem(c, log)
	m.stopAll = uiAddMenuItem("Stop all", "End every agent session now")
	m.start = uiAddMenuItem("Start server", "Start the MCP endpoint")
	m.stop = uiAddMenuItem("Stop server", "Stop the MCP endpoint and end every session")
	uiAddSeparator()
	m.quit = uiAddMenuItem("Quit", "Quit the tray (dbeast keeps running)")
	m.forwardClicks()
	return m
}

// forwardClicks starts one forwarder per item. systray drops a click
// when nobody is receiving on the item's channel at that moment (its
// send does not block), and the loop is busy during an API call. So one
// forwarder per item is always receiving and queues the click, in
// arrival order, for the loop. A request's click carries the request its
// slot showed at that moment.
func (m *menu) forwardClicks() {
	forward := func(ch <-chan struct{}, a action) {
		go func() {
			for range ch {
				m.clicks <- event{act: a}
			}
		}()
	}
	for _, s := range m.slots {
		for _, p := range []struct {
			item *menuItem
			act  action
		}{{s.allow, actAllow}, {s.deny, actDeny}, {s.review, actReview}} {
			go func() {
				for range p.item.ClickedCh {
					m.slotsMu.Lock()
					ev := event{act: p.act, id: s.id, armed: s.id != "" && time.Since(s.assigned) >= armDelay, from: "menu"}
					m.slotsMu.Unlock()
					if ev.id != "" {
						m.clicks <- ev
					}
				}
			}()
		}
	}
	forward(m.open.ClickedCh, actOpen)
	forward(m.stopAll.ClickedCh, actStopAll)
	forward(m.start.ClickedCh, actStart)
	forward(m.stop.ClickedCh, actStop)
	forward(m.quit.ClickedCh, actQuit)
}

// run is the event loop: it handles the clicks, one at a time, and
// refreshes on the tick until Quit.
func (m *menu) run(notifier Notifier) {
	defer notifier.Close()
	defer close(m.notes)
	m.refresh()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			m.refresh()
		case ev := <-m.clicks:
			if !m.handle(ev) {
				return
			}
		}
	}
}

// handle runs one event; false for Quit.
func (m *menu) handle(ev event) bool {
	switch ev.act {
	case actOpen:
		m.onOpen()
	case actReview:
		m.onReview(ev.id)
	case actAllow, actDeny:
		m.onDecide(ev)
	case actStopAll:
		m.onStopAll()
	case actStart:
		m.onStart()
	case actStop:
		m.onStop()
	case actQuit:
		uiQuit()
		return false
	}
	return true
}

// apiContext bounds one console API call.
func apiContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 5*time.Second)
}

// call makes one console API call and logs its failure.
func (m *menu) call(what string, f func(context.Context) error) {
	cx, cancel := apiContext()
	defer cancel()
	if err := f(cx); err != nil {
		m.log.Warn("console API call failed", "call", what, "error", err)
	}
}

// onOpen is Open console.
func (m *menu) onOpen() { m.openConsole("") }

// onReview is a request's Review in console… (menu or notification).
func (m *menu) onReview(id string) { m.openConsole(id) }

// onStopAll is Stop all.
func (m *menu) onStopAll() {
	m.call("stop-all", func(ctx context.Context) error { _, err := m.c.StopAll(ctx); return err })
	m.refresh()
}

// onStart is Start server.
func (m *menu) onStart() {
	m.call("start-server", m.c.StartServer)
	m.refresh()
}

// onStop is Stop server.
func (m *menu) onStop() {
	m.call("stop-server", m.c.StopServer)
	m.refresh()
}

// onDecide is Allow once or Deny (menu or notification), then a
// refresh.
func (m *menu) onDecide(ev event) {
	m.decide(ev)
	m.refresh()
}

// postNote hands n to showNotes. Notifications are shown by their own
// goroutine: a notification service that is slow or hangs must not hold
// up the menu. Only the latest change waits; an older one not yet made
// is dropped for it (a Show takes the place of the notification shown
// before, and a withdrawal leaves nothing to show).
func (m *menu) postNote(n noteOp) {
	for {
		select {
		case m.notes <- n:
			return
		default:
			select {
			case <-m.notes:
			default:
			}
		}
	}
}

// showNotes shows or withdraws the notification as posted until run
// closes the channel; a failure is logged once until a change succeeds
// again.
func (m *menu) showNotes(notifier Notifier) {
	noteErr := false
	for n := range m.notes {
		var err error
		if n.withdraw {
			err = notifier.Withdraw()
		} else {
			err = notifier.Show(n.note)
		}
		if err != nil {
			if !noteErr {
				m.log.Warn("cannot show a desktop notification", "error", err)
			}
			noteErr = true
		} else {
			noteErr = false
		}
	}
}

// setState shows why the tray has no list and logs a change of state.
func (m *menu) setState(err error) {
	state, why := "ok", ""
	switch {
	case err == nil:
	case errors.Is(err, ErrUnauthorized):
		state, why = "token", "Console refused the token in the token file"
	case errors.Is(err, ErrNotRunning):
		state, why = "down", "Console not reachable: is dbeast serve running?"
	default:
		state, why = "error", "Console answered with an error"
	}
	if state != m.lastState {
		if err == nil {
			m.log.Info("connected to the console")
		} else {
			m.log.Warn("cannot list pending requests", "error", err)
		}
		m.lastState = state
	}
	if err != nil {
		uiSetIcon(iconIdle)
		uiSetTitle("!")
		uiSetTooltip("dbeast: " + why)
		m.header.SetTitle(menuLabel(why))
	}
}

// refresh lists the pending requests and brings the menu, icon, title
// and tooltip up to date, then posts the notification due, if any.
func (m *menu) refresh() {
	cx, cancel := apiContext()
	defer cancel()
	reqs, err := m.c.Pending(cx)
	m.setState(err)
	if err != nil {
		m.slotsMu.Lock()
		for _, s := range m.slots {
			s.id = ""
			s.item.Hide()
		}
		m.slotsMu.Unlock()
		m.serverState(false, false)
		return
	}
	running, err := m.c.ServerRunning(cx)
	m.serverState(err == nil, running)
	now := time.Now()
	title, tip := Summary(len(reqs))
	uiSetTitle(title)
	uiSetTooltip(tip)
	m.header.SetTitle(menuLabel(tip))
	if len(reqs) > 0 {
		uiSetIcon(iconPending)
	} else {
		uiSetIcon(iconIdle)
	}
	m.slotsMu.Lock()
	m.placeLocked(reqs, now)
	m.slotsMu.Unlock()

	if note, ok := m.co.next(reqs, now); ok {
		m.postNote(noteOp{note: note})
	} else if op, ok := m.co.follow(reqs); ok {
		m.postNote(op)
	}
}

// serverState enables Start server only while the MCP server is stopped
// and Stop server only while it runs; known is false when the console
// did not say, and then neither is offered.
func (m *menu) serverState(known, running bool) {
	state := "unknown"
	switch {
	case known && running:
		state = "running"
	case known:
		state = "stopped"
	}
	if state == m.server {
		return
	}
	m.server = state
	enable := func(it *menuItem, on bool) {
		if on {
			it.Enable()
		} else {
			it.Disable()
		}
	}
	enable(m.start, known && !running)
	enable(m.stop, known && running)
}

// placeLocked gives each request in reqs (newest first) a slot and
// shows it there. A request keeps its place while it waits; a place
// freed now is not reused before the next refresh. m.slotsMu must be
// held.
func (m *menu) placeLocked(reqs []Request, now time.Time) {
	byID := make(map[string]Request, len(reqs))
	for _, r := range reqs {
		byID[r.ID] = r
	}
	freed := map[int]bool{}
	placed := map[string]bool{}
	for i, s := range m.slots {
		if _, ok := byID[s.id]; s.id != "" && !ok {
			s.id = ""
			freed[i] = true
		}
		placed[s.id] = true
	}
	for i := len(reqs) - 1; i >= 0; i-- { // oldest first
		r := reqs[i]
		if placed[r.ID] {
			continue
		}
		for j, s := range m.slots {
			if s.id == "" && !freed[j] {
				s.id, s.assigned = r.ID, now
				placed[r.ID] = true
				break
			}
		}
	}
	for _, s := range m.slots {
		r, ok := byID[s.id]
		if !ok {
			s.item.Hide()
			continue
		}
		s.show(r, now)
	}
}

// show writes r into the slot's submenu.
func (s *slot) show(r Request, now time.Time) {
	s.item.SetTitle(menuLabel(SlotTitle(r)))
	lines := Details(r, now)
	for k, l := range s.info {
		if k < len(lines) {
			l.SetTitle(menuLabel(lines[k]))
			l.Show()
		} else {
			l.Hide()
		}
	}
	if why := ReasonLine(r); why == "" {
		s.reason.Hide()
		s.allow.Show()
		s.deny.Show()
	} else {
		s.reason.SetTitle(menuLabel(why))
		s.reason.Show()
		s.allow.Hide()
		s.deny.Hide()
	}
	s.item.Show()
}

// openConsole opens the console in the browser with a fresh sign-in
// link, at request id when it is one.
func (m *menu) openConsole(id string) {
	cx, cancel := apiContext()
	defer cancel()
	u, err := m.c.SignInURL(cx)
	if err != nil {
		m.log.Warn("console API call failed", "call", "signin-link", "error", err)
		return
	}
	if id != "" && validID(id) {
		u += "&request=" + id // the console scrolls to this request
	}
	if err := openURL(u); err != nil {
		m.log.Warn("cannot open the browser", "error", err)
	}
}

// decide allows once or denies ev's request, after checking on a fresh
// listing that it still waits and is a one-time read: a write, full SQL
// and any session-wide scope are decided only in the console.
func (m *menu) decide(ev event) {
	from := ev.from
	what := "deny"
	if ev.act == actAllow {
		what = "allow once"
	}
	if !ev.armed {
		m.log.Info("decision ignored: the request had just taken its place in the menu", "action", what, "from", from)
		return
	}
	cx, cancel := apiContext()
	defer cancel()
	reqs, err := m.c.Pending(cx)
	if err != nil {
		m.log.Warn("console API call failed", "call", "requests", "error", err)
		return
	}
	var r *Request
	for i := range reqs {
		if reqs[i].ID == ev.id {
			r = &reqs[i]
		}
	}
	switch {
	case r == nil:
		m.log.Info("decision ignored: the request no longer waits", "action", what, "from", from)
		return
	case !Decidable(*r):
		m.log.Warn("decision refused: only a one-time read is decided from the tray", "action", what, "from", from)
		return
	}
	if ev.act == actAllow {
		err = m.c.Approve(cx, ev.id)
	} else {
		err = m.c.Deny(cx, ev.id)
	}
	if err != nil {
		m.log.Warn("console API call failed", "call", what, "error", err)
	} else {
		m.log.Info("request decided", "action", what, "from", from)
	}
}
