package tray

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// maxMenuRequests is how many pending requests the menu lists; the rest
// are counted in the title and shown in the console.
const maxMenuRequests = 8

// pollEvery is how often the tray asks for pending requests.
const pollEvery = 2 * time.Second

// armDelay is how long a request's Allow once and Deny wait after the
// request took its place in the menu: a click meant for the request shown
// there before must not decide the new one.
const armDelay = time.Second

// maxDetailLines is how many info lines a request's submenu has (see
// Details).
const maxDetailLines = 7 + maxStatementLines // 5 fields, the statement and "…", the age

// Run shows the tray icon and blocks until Quit is chosen. It must run on
// the main goroutine (a macOS rule). log receives what the tray does and
// why it cannot reach the console (static messages, never a token or a
// statement); nil discards it. The error is for a tray that cannot run
// on this platform at all.
func Run(c *Client, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return uiRun(func() { onReady(c, log) })
}

// action is what a menu click or a notification asks the loop to do.
type action int

const (
	actOpen action = iota
	actStopAll
	actStart
	actStop
	actQuit
	actAllow  // allow a request once
	actDeny   // deny a request
	actReview // open the console at a request
)

// event is one click or notification action, with the request it was
// about when it was made (decisions are about that request, whatever the
// menu shows by the time the loop gets to it).
type event struct {
	act   action
	id    string
	armed bool   // the request had been in its menu place for armDelay
	from  string // "menu" or "notification", for the log
}

// slot is one request entry of the menu: a submenu with the request's
// details and its actions.
type slot struct {
	item                *menuItem
	info                []*menuItem
	allow, deny, review *menuItem

	// Guarded by slotsMu: read by the click forwarders.
	id       string
	assigned time.Time
}

// onReady builds the menu and runs the event loop: clicks are handled one
// at a time, in the order they arrived, by one goroutine.
func onReady(c *Client, log *slog.Logger) {
	uiSetIcon(iconIdle)
	uiSetTooltip("dbeast")
	header := uiAddMenuItem("Nothing to approve", "Pending approvals")
	header.Disable()
	var slotsMu sync.Mutex
	slots := make([]*slot, maxMenuRequests)
	for i := range slots {
		s := &slot{item: uiAddMenuItem("", "A request waiting for your decision")}
		for range maxDetailLines {
			l := s.item.AddSubMenuItem("", "")
			l.Disable()
			s.info = append(s.info, l)
		}
		s.allow = s.item.AddSubMenuItem("Allow once", "Run this read once; nothing more is granted")
		s.deny = s.item.AddSubMenuItem("Deny", "Refuse this request")
		s.review = s.item.AddSubMenuItem("Review in console…", "Open the console at this request")
		s.item.Hide()
		slots[i] = s
	}
	uiAddSeparator()
	open := uiAddMenuItem("Open console", "Open the approval console in the browser")
	AddOpenDocumentItem(c, log)
	stopAll := uiAddMenuItem("Stop all", "End every agent session now")
	start := uiAddMenuItem("Start server", "Start the MCP endpoint")
	stop := uiAddMenuItem("Stop server", "Stop the MCP endpoint and end every session")
	uiAddSeparator()
	quit := uiAddMenuItem("Quit", "Quit the tray (dbeast keeps running)")

	ctx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 5*time.Second)
	}
	call := func(what string, f func(context.Context) error) {
		cx, cancel := ctx()
		defer cancel()
		if err := f(cx); err != nil {
			log.Warn("console API call failed", "call", what, "error", err)
		}
	}

	var (
		co        coalescer
		lastState = "start"
	)
	// Notifications are shown by their own goroutine: a notification
	// service that is slow or hangs must not hold up the menu. Only the
	// latest note waits; an older one not yet shown is dropped for it.
	notes := make(chan Note, 1)
	postNote := func(n Note) {
		for {
			select {
			case notes <- n:
				return
			default:
				select {
				case <-notes:
				default:
				}
			}
		}
	}
	showNotes := func(notifier Notifier) {
		noteErr := false
		for n := range notes {
			if err := notifier.Show(n); err != nil {
				if !noteErr {
					log.Warn("cannot show a desktop notification", "error", err)
				}
				noteErr = true
			} else {
				noteErr = false
			}
		}
	}
	// setState shows why the tray has no list and logs a change of state.
	setState := func(err error) {
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
		if state != lastState {
			if err == nil {
				log.Info("connected to the console")
			} else {
				log.Warn("cannot list pending requests", "error", err)
			}
			lastState = state
		}
		if err != nil {
			uiSetIcon(iconIdle)
			uiSetTitle("!")
			uiSetTooltip("dbeast: " + why)
			header.SetTitle(menuLabel(why))
		}
	}
	refresh := func() {
		cx, cancel := ctx()
		defer cancel()
		reqs, err := c.Pending(cx)
		setState(err)
		if err != nil {
			slotsMu.Lock()
			for _, s := range slots {
				s.id = ""
				s.item.Hide()
			}
			slotsMu.Unlock()
			return
		}
		now := time.Now()
		title, tip := Summary(len(reqs))
		uiSetTitle(title)
		uiSetTooltip(tip)
		header.SetTitle(menuLabel(tip))
		if len(reqs) > 0 {
			uiSetIcon(iconPending)
		} else {
			uiSetIcon(iconIdle)
		}
		byID := make(map[string]Request, len(reqs))
		for _, r := range reqs {
			byID[r.ID] = r
		}
		slotsMu.Lock()
		// A request keeps its place while it waits; a place freed now is
		// not reused before the next refresh.
		freed := map[int]bool{}
		placed := map[string]bool{}
		for i, s := range slots {
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
			for j, s := range slots {
				if s.id == "" && !freed[j] {
					s.id, s.assigned = r.ID, now
					placed[r.ID] = true
					break
				}
			}
		}
		for _, s := range slots {
			r, ok := byID[s.id]
			if !ok {
				s.item.Hide()
				continue
			}
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
			if Decidable(r) {
				s.allow.Show()
				s.deny.Show()
			} else {
				s.allow.Hide()
				s.deny.Hide()
			}
			s.item.Show()
		}
		slotsMu.Unlock()

		if note, ok := co.next(reqs, now); ok {
			postNote(note)
		}
	}
	openConsole := func(id string) {
		cx, cancel := ctx()
		defer cancel()
		u, err := c.SignInURL(cx)
		if err != nil {
			log.Warn("console API call failed", "call", "signin-link", "error", err)
			return
		}
		if id != "" && validID(id) {
			u += "&request=" + id // the console scrolls to this request
		}
		if err := openURL(u); err != nil {
			log.Warn("cannot open the browser", "error", err)
		}
	}
	// decide allows once or denies id, after checking on a fresh listing
	// that it still waits and is a one-time read: a write, full SQL and
	// any session-wide scope are decided only in the console.
	decide := func(ev event) {
		from := ev.from
		what := "deny"
		if ev.act == actAllow {
			what = "allow once"
		}
		if !ev.armed {
			log.Info("decision ignored: the request had just taken its place in the menu", "action", what, "from", from)
			return
		}
		cx, cancel := ctx()
		defer cancel()
		reqs, err := c.Pending(cx)
		if err != nil {
			log.Warn("console API call failed", "call", "requests", "error", err)
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
			log.Info("decision ignored: the request no longer waits", "action", what, "from", from)
			return
		case !Decidable(*r):
			log.Warn("decision refused: only a one-time read is decided from the tray", "action", what, "from", from)
			return
		}
		if ev.act == actAllow {
			err = c.Approve(cx, ev.id)
		} else {
			err = c.Deny(cx, ev.id)
		}
		if err != nil {
			log.Warn("console API call failed", "call", what, "error", err)
		} else {
			log.Info("request decided", "action", what, "from", from)
		}
	}

	// systray drops a click when nobody is receiving on the item's
	// channel at that moment (its send does not block), and the loop below
	// is busy during an API call. So one forwarder per item is always
	// receiving and queues the click, in arrival order, for the loop.
	clicks := make(chan event, 16)
	forward := func(ch <-chan struct{}, a action) {
		go func() {
			for range ch {
				clicks <- event{act: a}
			}
		}()
	}
	for _, s := range slots {
		for _, p := range []struct {
			item *menuItem
			act  action
		}{{s.allow, actAllow}, {s.deny, actDeny}, {s.review, actReview}} {
			go func() {
				for range p.item.ClickedCh {
					slotsMu.Lock()
					ev := event{act: p.act, id: s.id, armed: s.id != "" && time.Since(s.assigned) >= armDelay, from: "menu"}
					slotsMu.Unlock()
					if ev.id != "" {
						clicks <- ev
					}
				}
			}()
		}
	}
	forward(open.ClickedCh, actOpen)
	forward(stopAll.ClickedCh, actStopAll)
	forward(start.ClickedCh, actStart)
	forward(stop.ClickedCh, actStop)
	forward(quit.ClickedCh, actQuit)
	// loop handles the clicks, one at a time, and refreshes on the tick
	// until Quit.
	loop := func(notifier Notifier) {
		defer notifier.Close()
		defer close(notes)
		refresh()
		tick := time.NewTicker(pollEvery)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				refresh()
			case ev := <-clicks:
				switch ev.act {
				case actOpen:
					openConsole("")
				case actReview:
					openConsole(ev.id)
				case actAllow, actDeny:
					decide(ev)
					refresh()
				case actStopAll:
					call("stop-all", func(ctx context.Context) error { _, err := c.StopAll(ctx); return err })
					refresh()
				case actStart:
					call("start-server", c.StartServer)
				case actStop:
					call("stop-server", c.StopServer)
					refresh()
				case actQuit:
					uiQuit()
					return
				}
			}
		}
	}
	// Everything that may wait on D-Bus or the console runs off the UI
	// thread that called onReady: the notifier's setup and the first
	// refresh too.
	go func() {
		notifier, err := newNotifier()
		if err != nil {
			log.Warn("desktop notifications are off", "error", err)
			notifier = noNotifier{}
		}
		go showNotes(notifier)
		go forwardInvoked(notifier, clicks)
		loop(notifier)
	}()
}

// forwardInvoked queues the notification actions the person chose as
// events for the loop.
func forwardInvoked(notifier Notifier, clicks chan<- event) {
	for key := range notifier.Invoked() {
		word, id := parseKey(key)
		ev := event{id: id, armed: true, act: -1, from: "notification"}
		switch word {
		case "allow":
			ev.act = actAllow
		case "deny":
			ev.act = actDeny
		case "review":
			ev.act = actReview
		}
		if ev.act >= 0 {
			clicks <- ev
		}
	}
}
