package conformance

import (
	"github.com/dbeast/dbeast/verifier"
)

// VerifyFunc is the verifier under test; dialect.Verify in production, a
// planted bug in tests.
type VerifyFunc func(verifier.Input) (*verifier.Verdict, error)

// Source says where a case comes from.
type Source string

// Case sources.
const (
	FromCorpus    Source = "corpus"
	FromGenerated Source = "generated"
)

// Case is one SQL text to check. The zero Mode is read mode.
type Case struct {
	Source Source        `json:"source"`
	Name   string        `json:"name"`
	SQL    string        `json:"sql"`
	Mode   verifier.Mode `json:"mode,omitempty"`
}

// Kind classifies a disagreement.
type Kind string

// Disagreement kinds. Every one of them is a failure of the verifier's
// promise (or of normalization), never an over-refusal.
const (
	// KindVerdictUnstable: verify(normalized) is refused or differs from
	// verify(original) in tables, columns, functions, op or text.
	KindVerdictUnstable Kind = "verdict_unstable"
	// KindTouchedTable: the server read a table outside the verdict.
	KindTouchedTable Kind = "touched_table"
	// KindCalledFunction: the server called a user function, a function
	// outside the verdict, or a volatile one.
	KindCalledFunction Kind = "called_function"
	// KindExplainRelation: the plan names a relation outside the verdict.
	KindExplainRelation Kind = "explain_relation"
	// KindWrite: a write-detector moved (xid assigned, change counters,
	// row counts, authorizer write actions).
	KindWrite Kind = "write"
	// KindRowsDiffer: original and normalized SQL return different rows.
	KindRowsDiffer Kind = "rows_differ"
	// KindNotOneStatement: the server does not read the normalized SQL as
	// exactly one statement.
	KindNotOneStatement Kind = "not_one_statement"
	// KindOtherAction: an authorizer saw an action other than a read.
	KindOtherAction Kind = "other_action"
	// KindCastObligation: the plan casts a column that is not of a date
	// or time type to one (so the server parses the column's text) and
	// the verdict carries no type obligation on it.
	KindCastObligation Kind = "cast_obligation"
	// KindVerifierError: the verifier panicked or returned an error that is
	// not a refusal.
	KindVerifierError Kind = "verifier_error"
)

// Problem is one thing the server showed that the verdict does not allow.
type Problem struct {
	Kind   Kind   `json:"kind"`
	Detail string `json:"detail"`
}

// Observation is what an engine saw while checking one accepted case.
// Error strings are the server's own text: the artifact is for developers
// and is never shown to an agent.
type Observation struct {
	NormalizedRows  int       `json:"normalized_rows"`
	OriginalRows    int       `json:"original_rows"`
	NormalizedError string    `json:"normalized_error,omitempty"`
	OriginalError   string    `json:"original_error,omitempty"`
	TablesTouched   []string  `json:"tables_touched,omitempty"`
	FunctionsCalled []string  `json:"functions_called,omitempty"`
	PlanRelations   []string  `json:"plan_relations,omitempty"`
	PlanFunctions   []string  `json:"plan_functions,omitempty"`
	Actions         []string  `json:"actions,omitempty"`
	Problems        []Problem `json:"problems,omitempty"`
}

// Disagreement is the artifact of one failing case.
type Disagreement struct {
	Case          Case         `json:"case"`
	Kind          Kind         `json:"kind"`
	Verdict       *VerdictJSON `json:"verdict,omitempty"`
	Problems      []Problem    `json:"problems"`
	Observation   *Observation `json:"observation,omitempty"`
	ShrunkSQL     string       `json:"shrunk_sql,omitempty"`
	ShrunkVerdict *VerdictJSON `json:"shrunk_verdict,omitempty"`
}

// VerdictJSON is the verdict's part of an artifact.
type VerdictJSON struct {
	NormalizedSQL string              `json:"normalized_sql"`
	Tables        []string            `json:"tables"`
	Columns       map[string][]string `json:"columns,omitempty"`
	Functions     []string            `json:"functions,omitempty"`
}

func verdictJSON(v *verifier.Verdict) *VerdictJSON {
	if v == nil {
		return nil
	}
	return &VerdictJSON{NormalizedSQL: v.NormalizedSQL, Tables: v.TableNames(), Columns: v.Columns, Functions: v.Functions}
}
