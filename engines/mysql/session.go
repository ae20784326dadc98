package mysql

// A verified read on MariaDB skips its session SET (sessionSQL) when the
// connection provably holds exactly what that SET would set, which saves
// one of a warm point read's round trips. The SET is skipped only when
// all of these hold (pconn.sessionHolds):
//
//   - the last SET applied on the connection has the same text: the same
//     kind of operation, the same time limits in whole seconds, the same
//     temporary-space cap;
//   - every operation since that SET ended cleanly (settle): a failure,
//     a cancel or a refusal forgets the session, and such a connection is
//     not reused anyway;
//   - nothing was written to the connection since the last clean
//     operation ended: limitConn counts every write. A MariaDB session's
//     variables change only through statements sent on that session (SET
//     GLOBAL changes the defaults of new sessions, no other session can
//     set them), so a statement sent outside an operation (a test
//     touching Engine.conn, say) makes the next read apply its SET again;
//   - no statement of a read or a description changes a session variable.
//     After the SET they send LOCK TABLES … READ, START TRANSACTION READ
//     ONLY (the transaction's own access mode; @@tx_read_only is left as
//     it is), SELECTs of information_schema, the metadata-lock statement,
//     SHOW CREATE TABLE, SHOW WARNINGS, ROLLBACK and SET STATEMENT … FOR
//     prefixes, which restore every variable after their statement, on an
//     error too. The verified SELECT has no syntax that assigns a system
//     variable, no INTO (the verifier refuses it) and calls only native
//     built-in functions (checkFunctions), never a stored function that
//     could run SET.
//
// The one value of the SET that can change while the session does nothing
// is time_zone = @@GLOBAL.time_zone. So every statement of a read that
// reads the session's zone (SHOW CREATE TABLE, which prints TIMESTAMP
// defaults in it; the relation guard's EXPLAIN; the read) carries
// time_zone = @@GLOBAL.time_zone in its own SET STATEMENT (zoneSetting),
// and each read still runs in the global zone of its moment
// (TestReadZoneIsGlobalEachRead).
//
// Not on MySQL 8: its read turns the session read-only after LOCK TABLES
// (lockInReadOnly), so its session never holds its SET's text, and it has
// no SET STATEMENT for the zone. Not on TLS: the writes are not counted.

// zoneSetting is the SET STATEMENT assignment that runs a statement in
// the server's global time zone, as the session SET does.
const zoneSetting = "time_zone = @@GLOBAL.time_zone"

// sessionHolds reports whether the session is known to hold exactly what
// the SET q sets (see above).
func (pc *pconn) sessionHolds(q string) bool {
	return pc.fl.mariadb && pc.lc != nil && pc.session != "" && pc.session == q &&
		pc.lc.writes.Load() == pc.quiet
}

// settle records how an operation ended: cleanly, the connection's write
// count, against which the next operation checks that nothing was sent in
// between; otherwise the session is unknown.
func (pc *pconn) settle(clean bool) {
	if !clean || pc.lc == nil {
		pc.session = ""
		return
	}
	pc.quiet = pc.lc.writes.Load()
}
