package postgres

import "github.com/dbeast/dbeast/engines"

// Reasons specific to PostgreSQL. Like the shared ones they are static text:
// nothing from the server, the catalog or the data is ever added to them.
const (
	ReasonTableKind        engines.Reason = "only plain tables, materialized views and plain views can be read"
	ReasonPersistence      engines.Reason = "temporary and unlogged tables are not supported"
	ReasonAccessMethod     engines.Reason = "only tables stored with the built-in heap access method are supported"
	ReasonSystemRelation   engines.Reason = "system catalogs and system schemas cannot be read"
	ReasonRLS              engines.Reason = "tables with row-level security are not supported"
	ReasonInheritance      engines.Reason = "tables that inherit or are inherited from are not supported"
	ReasonPartitioning     engines.Reason = "partitioned tables and partitions are not supported"
	ReasonGeneratedColumn  engines.Reason = "tables with generated columns are not supported"
	ReasonIndexDependency  engines.Reason = "an index of the table depends on an object that is not built in"
	ReasonCheckDependency  engines.Reason = "a CHECK constraint of the table depends on an object that is not built in"
	ReasonColumnType       engines.Reason = "a column has a type that is not a built-in base type or an array of one"
	ReasonColumnCollation  engines.Reason = "a column uses a collation that is not built in"
	ReasonViewDefinition   engines.Reason = "the view definition uses a function, operator, type or collation that is not built in, or a volatile function"
	ReasonViewTooDeep      engines.Reason = "views are nested more than eight levels deep"
	ReasonTooManyRelations engines.Reason = "the query reads more relations than the proof allows"
	ReasonLockPrivilege    engines.Reason = "the account lacks the privilege to lock the table for a stable read"
	ReasonStandby          engines.Reason = "the server is a standby; stable reads need a primary server"
	ReasonLockTimeout      engines.Reason = "a table lock could not be obtained in time"
	ReasonPrivilege        engines.Reason = "the account lacks a privilege the statement needs"
	ReasonSerialization    engines.Reason = "the statement conflicted with a concurrent transaction; the request must be made again"
	ReasonReadOnlyTxn      engines.Reason = "the statement tried to write inside a read-only transaction"
	ReasonUnsupported      engines.Reason = "the server does not support an operation the statement needs"
	ReasonPlanChanged      engines.Reason = "the table definition changed; the request must be made again"
	ReasonChangedDuring    engines.Reason = "a table changed while the read was being prepared; the request must be made again"
	ReasonWroteDuringRead  engines.Reason = "the read would have written to the database and was rolled back"
	ReasonConnectionLost   engines.Reason = "the connection to the database server was lost"
	ReasonParameters       engines.Reason = "the statement has parameters, which are not supported"
	ReasonUnlistedRelation engines.Reason = "the statement reads a relation the verified query does not list"
	ReasonNotTableWrite    engines.Reason = "the statement is not a verified single-table write"
	// ReasonCatalogTampered: catalogguard.go.
	ReasonCatalogTampered   engines.Reason = "the database changes what built-in types or operators do (user-defined casts, operators or operator classes on built-in types)"
	ReasonCancelledOnServer engines.Reason = "the statement was cancelled on the server by another session or an administrator"
	// ReasonMessageTooLarge: encode.go's maxMessageBytes.
	ReasonMessageTooLarge engines.Reason = "the server sent a row or value larger than the 16 MiB the engine reads in one message"
	ReasonServerVersion   engines.Reason = "the server is older than PostgreSQL 13, the oldest version dbeast is tested with, or does not report its version"
)
