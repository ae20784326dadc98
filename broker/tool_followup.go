package broker

import "context"

type requestIDIn struct {
	SessionToken SessionToken `json:"session_token"`
	RequestID    RequestID    `json:"request_id"`
}

// toolGetRequest returns the status and bounded result of the caller's own
// request without running it again. Another session's request id gives
// the same generic error as an unknown one.
func (b *Broker) toolGetRequest(_ context.Context, c Call, in requestIDIn) (*requestOut, error) {
	s, terr := b.session(c.ConnectionID, string(in.SessionToken))
	if terr != nil {
		return nil, terr
	}
	return b.reqs.View(s.ID, string(in.RequestID))
}

// toolCancelRequest cancels the caller's own pending or running request
// and blocks its result. A running write becomes outcome_unknown: the
// statement may already have taken effect.
func (b *Broker) toolCancelRequest(_ context.Context, c Call, in requestIDIn) (*requestOut, error) {
	s, terr := b.session(c.ConnectionID, string(in.SessionToken))
	if terr != nil {
		return nil, terr
	}
	return b.reqs.Cancel(s.ID, string(in.RequestID))
}
