package sqlite

// SQLite's cost model (verifier/cost.go). SQLite keeps no zone data (its
// date functions know only UTC and the machine's local time), so the
// date/time strings counted against the shared bound are the string
// arguments of its date and time functions (the time value and the
// modifiers), distinct and case folded. GROUP_CONCAT is the only growth
// aggregate the read path allows (json_group_array and json_group_object
// are not on the list). SQLite has no grouping sets. The hook is the
// walker's function-call case (walk.go); like the rest of the walker it
// refuses by panicking with the refusal (bail).

// dateFunctions are the functions whose string arguments are date/time
// strings.
var dateFunctions = map[string]bool{
	"date": true, "time": true, "datetime": true, "julianday": true, "unixepoch": true, "strftime": true,
}

// costCall counts a call's growth aggregate and date/time strings.
func (w *walker) costCall(x *funcCall) {
	name := asciiLower(x.name)
	if name == "group_concat" {
		if err := w.costs.GrowthAggregate(); err != nil {
			panic(err)
		}
	}
	if !dateFunctions[name] {
		return
	}
	for _, a := range x.args {
		if l, ok := a.(*literal); ok && l.kind == litString {
			if err := w.costs.DateTimeString(l.text); err != nil {
				panic(err)
			}
		}
	}
}
