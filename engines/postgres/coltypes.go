package postgres

import (
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// ReasonColumnTypeMismatch refuses a read whose verdict is safe only if a
// column has a type it does not have (verifier.ColumnType).
const ReasonColumnTypeMismatch engines.Reason = "the query casts a column whose type does not make the cast safe; cast a date/time column, or use date_trunc or make_date"

// builtinTypeNames are the built-in types a verdict's type obligations
// may name, by their OIDs. OIDs below FirstNormalObjectId are fixed by
// initdb and the same on every supported version, so a column whose
// atttypid is one of these is of that built-in type; any other type
// (a domain over one of them included) discharges no obligation.
var builtinTypeNames = map[uint32]string{
	1082: "date",
	1083: "time",
	1114: "timestamp",
	1184: "timestamptz",
	1186: "interval",
	1266: "timetz",
}

// checkColumnTypes discharges a verdict's type obligations from the
// column types proven in this transaction: for each, every listed table
// that has the column has it with one of the allowed types, and at least
// one has it. A table the proof has not seen fails closed.
func checkColumnTypes(p *prover, obligations []verifier.ColumnType) error {
	if len(obligations) == 0 {
		return nil
	}
	byTable := make(map[verifier.Table]*relProof, len(p.seen))
	for _, r := range p.seen {
		byTable[r.table] = r
	}
	for _, ob := range obligations {
		allowed := make(map[string]bool, len(ob.Types))
		for _, t := range ob.Types {
			allowed[t] = true
		}
		found := false
		for _, t := range ob.Tables {
			r, ok := byTable[t]
			if !ok {
				return ineligible(ReasonColumnTypeMismatch)
			}
			typ, ok := r.types[ob.Column]
			if !ok {
				continue
			}
			found = true
			if name, ok := builtinTypeNames[typ]; !ok || !allowed[name] {
				return ineligible(ReasonColumnTypeMismatch)
			}
		}
		if !found {
			return ineligible(ReasonColumnTypeMismatch)
		}
	}
	return nil
}
