package broker

// installRequestHooks ties requests and grants to the lifetime of their
// session and to the sharing settings (the request machine's
// SessionEnded and SharingChanged).
func (b *Broker) installRequestHooks() {
	b.onSessionEnd(b.reqs.SessionEnded)
	b.onSharingChange(b.reqs.SharingChanged)
}
