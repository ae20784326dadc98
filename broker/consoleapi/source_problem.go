package consoleapi

import (
	"errors"
	"net/http"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/engines"
)

// testedHealth is a connection test's answer with its problem: one
// stable code per thing the person can fix (engines.ProblemOf), next to
// the engine's static code and reason.
type testedHealth struct {
	broker.SourceHealth
	Problem engines.Problem `json:"problem,omitempty"`
}

func withProblem(h broker.SourceHealth) testedHealth {
	return testedHealth{h, engines.ProblemOf(h.Code, h.Reason)}
}

// writeSourceError answers a refused new source like writeError, and
// when the driver refused it adds the engine's static reason and its
// problem (a SQLite file that does not exist, a DSN that does not
// parse), which are safe to show: never the DSN or the driver's text.
func writeSourceError(w http.ResponseWriter, err error) {
	var ee *engines.Error
	if errors.Is(err, broker.ErrInvalidSource) && errors.As(err, &ee) {
		writeJSON(w, http.StatusBadRequest, map[string]string{
			"error": broker.ErrInvalidSource.Error(), "reason": string(ee.Reason), "problem": string(engines.ProblemOf(ee.Code, ee.Reason)),
		})
		return
	}
	writeError(w, err, nil)
}
