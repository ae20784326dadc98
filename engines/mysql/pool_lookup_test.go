package mysql

import "github.com/dbeast/dbeast/engines"

// poolFor returns the zero Driver's pool of src, making it on first use.
func poolFor(src engines.Source) *sourcePool { return poolOf(sharedPools, src) }
