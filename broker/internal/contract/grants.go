package contract

// GrantInfo is one session grant as the console shows it. SourceID is set
// for the source, full_sql and table scopes, Schema and Name for table,
// FileID for document; Alias is the source's or document's alias. It is
// here, below both, because the request machine builds it and the
// session list (broker/internal/state) carries it.
type GrantInfo struct {
	Scope    string `json:"scope"`
	SourceID string `json:"source_id,omitempty"`
	Schema   string `json:"schema,omitempty"`
	Name     string `json:"name,omitempty"`
	FileID   string `json:"file_id,omitempty"`
	Alias    string `json:"alias,omitempty"`
}
