package tray

import (
	"log/slog"
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

// onReady builds the menu on the UI thread that systray calls it on and
// starts its event loop. Everything that may wait on D-Bus or the
// console runs off that thread: the notifier's setup and the first
// refresh too.
func onReady(c *Client, log *slog.Logger) {
	m := newMenu(c, log)
	go func() {
		notifier, err := newNotifier()
		if err != nil {
			log.Warn("desktop notifications are off", "error", err)
			notifier = noNotifier{}
		}
		go m.showNotes(notifier)
		go forwardInvoked(notifier, m.clicks)
		m.run(notifier)
	}()
}
