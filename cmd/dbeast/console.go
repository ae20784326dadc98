package main

import "fmt"

func init() {
	commands["console"] = command{summary: "print a fresh one-time sign-in link to the running broker's console", run: func(args []string) int {
		return runConsole(args, stdIO())
	}}
}

// runConsole asks the running broker for a new sign-in link: the way
// back into the console after a restart or a closed tab, since the link
// serve prints works once.
func runConsole(args []string, o cmdIO) int {
	var af apiFlags
	fs := newFlagSet("console", "console [--json]", "  dbeast console      # open the printed link in a browser within 10 minutes\n", o)
	af.register(fs)
	pos, code, ok := parseArgs(fs, args, o)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return o.usageError("console", "takes no arguments")
	}
	c, err := af.client()
	if err != nil {
		return o.usageError("console", err.Error())
	}
	var link struct {
		URL string `json:"url"`
	}
	raw, err := c.call("POST", "/api/signin-link", nil, &link)
	if err != nil {
		return o.fail("console", err)
	}
	if af.json {
		o.printJSON(raw)
		return exitOK
	}
	fmt.Fprintf(o.stdout, "%s\n(a sign-in link; it works once, for 10 minutes)\n", link.URL)
	return exitOK
}
