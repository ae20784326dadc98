package main

import "fmt"

func init() {
	commands["reload"] = command{summary: "apply the running broker's --config file again (like SIGHUP)", run: func(args []string) int {
		return runReload(args, stdIO())
	}}
}

func runReload(args []string, o cmdIO) int {
	var af apiFlags
	fs := newFlagSet("reload", "reload [--json]", "  dbeast reload      # after editing the file given to dbeast serve --config\n", o)
	af.register(fs)
	pos, code, ok := parseArgs(fs, args, o)
	if !ok {
		return code
	}
	if len(pos) != 0 {
		return o.usageError("reload", "takes no arguments")
	}
	c, err := af.client()
	if err != nil {
		return o.usageError("reload", err.Error())
	}
	var sum applySummary
	raw, err := c.call("POST", "/api/reload", nil, &sum)
	if err != nil {
		var ae *apiError
		if asAPIError(err, &ae) && ae.Status == 404 {
			return o.fail("reload", &apiError{Status: 404, Msg: "the broker was not started with --config"})
		}
		return o.fail("reload", err)
	}
	if af.json {
		o.printJSON(raw)
		return exitOK
	}
	fmt.Fprintf(o.stdout, "Applied: %d added, %d changed, %d removed, %d unchanged.\n", len(sum.Added), len(sum.Changed), len(sum.Removed), sum.Unchanged)
	return exitOK
}
