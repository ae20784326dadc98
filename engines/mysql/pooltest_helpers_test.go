package mysql

import "github.com/dbeast/dbeast/engines"

// drainSource closes the idle pooled connections of src.
func drainSource(src engines.Source) { poolFor(src).drain() }
