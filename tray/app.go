package tray

import (
	"context"
	"log/slog"
	"time"

	"fyne.io/systray"
)

// maxMenuRequests is how many pending requests the menu lists; the rest
// are counted in the title and shown in the console.
const maxMenuRequests = 8

// pollEvery is how often the tray asks for pending requests.
const pollEvery = 2 * time.Second

// Run shows the tray icon and blocks until Quit is chosen. It must run on
// the main goroutine (a macOS rule). log receives failures of API calls
// (static messages only); nil discards them.
func Run(c *Client, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	systray.Run(func() { onReady(c, log) }, nil)
}

// action is what a menu click asks the loop to do.
type action int

const (
	actOpen action = iota
	actStopAll
	actStart
	actStop
	actQuit
)

// onReady builds the menu and runs the event loop: clicks are handled one
// at a time, in the order they arrived, by one goroutine.
func onReady(c *Client, log *slog.Logger) {
	systray.SetIcon(iconIdle)
	systray.SetTooltip("dbeast")
	header := systray.AddMenuItem("Nothing to approve", "Pending approvals")
	header.Disable()
	slots := make([]*systray.MenuItem, maxMenuRequests)
	for i := range slots {
		slots[i] = systray.AddMenuItem("", "Open the console to decide")
		slots[i].Hide()
	}
	systray.AddSeparator()
	open := systray.AddMenuItem("Open console", "Open the approval console in the browser")
	stopAll := systray.AddMenuItem("Stop all", "End every agent session now")
	start := systray.AddMenuItem("Start server", "Start the MCP endpoint")
	stop := systray.AddMenuItem("Stop server", "Stop the MCP endpoint and end every session")
	systray.AddSeparator()
	quit := systray.AddMenuItem("Quit", "Quit the tray (dbeast keeps running)")

	call := func(what string, f func(context.Context) error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := f(ctx); err != nil {
			log.Warn("console API call failed", "call", what, "error", err)
		}
	}
	refresh := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		reqs, err := c.Pending(ctx)
		if err != nil {
			systray.SetIcon(iconIdle)
			systray.SetTooltip("dbeast: console not reachable")
			header.SetTitle("Console not reachable")
			for _, s := range slots {
				s.Hide()
			}
			return
		}
		title, tip := Summary(len(reqs))
		systray.SetTitle(title)
		systray.SetTooltip(tip)
		header.SetTitle(tip)
		if len(reqs) > 0 {
			systray.SetIcon(iconPending)
		} else {
			systray.SetIcon(iconIdle)
		}
		for i, s := range slots {
			if i < len(reqs) {
				s.SetTitle(ItemText(reqs[i]))
				s.Show()
			} else {
				s.Hide()
			}
		}
	}
	openConsole := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		u, err := c.SignInURL(ctx)
		if err != nil {
			log.Warn("console API call failed", "call", "signin-link", "error", err)
			return
		}
		if err := openURL(u); err != nil {
			log.Warn("cannot open the browser", "error", err)
		}
	}

	// systray drops a click when nobody is receiving on the item's
	// channel at that moment (its send does not block), and the loop below
	// is busy during an API call. So one forwarder per item is always
	// receiving and queues the click, in arrival order, for the loop.
	clicks := make(chan action, 16)
	forward := func(ch <-chan struct{}, a action) {
		go func() {
			for range ch {
				clicks <- a
			}
		}()
	}
	for _, s := range slots {
		// Every slot opens the console on the pending page.
		forward(s.ClickedCh, actOpen)
	}
	forward(open.ClickedCh, actOpen)
	forward(stopAll.ClickedCh, actStopAll)
	forward(start.ClickedCh, actStart)
	forward(stop.ClickedCh, actStop)
	forward(quit.ClickedCh, actQuit)

	refresh()
	tick := time.NewTicker(pollEvery)
	go func() {
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				refresh()
			case a := <-clicks:
				switch a {
				case actOpen:
					openConsole()
				case actStopAll:
					call("stop-all", func(ctx context.Context) error { _, err := c.StopAll(ctx); return err })
					refresh()
				case actStart:
					call("start-server", c.StartServer)
				case actStop:
					call("stop-server", c.StopServer)
					refresh()
				case actQuit:
					systray.Quit()
					return
				}
			}
		}
	}()
}
