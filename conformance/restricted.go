package conformance

import (
	"strconv"

	"github.com/dbeast/dbeast/conformance/gen"
	"github.com/dbeast/dbeast/verifier"
)

// The restricted-account oracle: every accepted read runs once more as an
// account granted SELECT on exactly the verdict's tables, with the
// fixture's schema or database as the default, so that a name the server
// resolves to a base table the verdict does not list is denied instead of
// failing with "no database selected" or "relation does not exist". A
// denial is a disagreement of kind touched_table. It sees what the plan
// checks can miss: a CTE name that the verifier and the server scope
// differently looks the same in a plan (MariaDB's nested WITH, issue 15).
//
// One account per subset of the fixture tables (the decoy included) is
// created with the fixture, so a case costs no GRANT: the oracle picks the
// account of the verdict's subset. A verdict naming anything else (a
// corpus table the fixture lacks) is not checked this way.

// verdictTables are the tables the accounts' subsets are drawn from.
func verdictTables() []gen.Table {
	return append(append([]gen.Table{}, gen.Tables...), gen.SecretTable)
}

// verdictAccount is the name of the account granted subset mask of
// verdictTables.
func verdictAccount(mask int) string { return "dbeast_conf_v" + strconv.Itoa(mask) }

// verdictMask returns the subset of verdictTables that v names, or false
// when v names a table outside them (or outside schema).
func verdictMask(v *verifier.Verdict, schema string) (int, bool) {
	mask := 0
	for _, t := range v.Tables {
		if t.Schema != schema {
			return 0, false
		}
		found := false
		for i, ft := range verdictTables() {
			if ft.Name == t.Name {
				mask |= 1 << i
				found = true
			}
		}
		if !found {
			return 0, false
		}
	}
	return mask, true
}
