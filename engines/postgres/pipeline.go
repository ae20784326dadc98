package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// A pipeline sends statements that do not depend on an earlier answer in
// one write and reads every answer after it: one round trip. The server
// runs them in order, exactly as if they had been sent one by one; after
// an error it skips everything up to the next sync point, so nothing
// after a failed step runs (a failed LOCK means no PREPARE, no read).

// step is one request of a pipeline and, once run, its answer.
type step struct {
	sql     string
	args    []string
	prepare string // Parse and Describe sql as this prepared statement
	exec    string // execute this prepared statement (text results through read)
	stmt    string // execute this prepared catalog query with args
	sync    bool   // a sync point: ends the implicit transaction and error skipping
	// read consumes a result instead of the default (all rows copied).
	read func(rr *pgconn.ResultReader) error

	rows [][][]byte
	sd   *pgconn.StatementDescription
	done bool // the server answered this step without error
}

// pipeline collects steps.
type pipeline struct{ steps []*step }

func (p *pipeline) query(sql string, args ...string) *step {
	s := &step{sql: sql, args: args}
	p.steps = append(p.steps, s)
	return s
}

func (p *pipeline) prepare(name, sql string) *step {
	s := &step{sql: sql, prepare: name}
	p.steps = append(p.steps, s)
	return s
}

// execStatement runs a prepared catalog query with text parameters and
// keeps its rows; sql is kept only to name the step.
func (p *pipeline) execStatement(name, sql string, args []string) *step {
	s := &step{sql: sql, args: args, stmt: name}
	p.steps = append(p.steps, s)
	return s
}

func (p *pipeline) execPrepared(name string, read func(rr *pgconn.ResultReader) error) *step {
	s := &step{exec: name, read: read}
	p.steps = append(p.steps, s)
	return s
}

func (p *pipeline) sync() {
	p.steps = append(p.steps, &step{sync: true})
}

// errNoResult is a private cause: the server's answers ran out early.
var errNoResult = errors.New("postgres: pipeline answer missing")

// run sends every step in one write and reads the answers. It returns the
// first error with the step it belongs to (nil for a connection-level
// failure); the connection is then no longer reusable. The steps must end
// with a sync point.
func (e *Engine) run(ctx context.Context, pl *pipeline) (*step, error) {
	p := e.pg.StartPipeline(ctx)
	for _, s := range pl.steps {
		switch {
		case s.sync:
			p.SendPipelineSync()
		case s.prepare != "":
			p.SendPrepare(s.prepare, s.sql, nil)
		case s.exec != "":
			p.SendQueryPrepared(s.exec, nil, nil, textFormat)
		case s.stmt != "":
			p.SendQueryPrepared(s.stmt, textParams(s.args), nil, nil)
		default:
			p.SendQueryParams(s.sql, textParams(s.args), nil, nil, nil)
		}
	}
	if err := p.Flush(); err != nil {
		p.Close()
		return nil, err
	}
	var failed *step
	var first error
	for _, s := range pl.steps {
		res, err := p.GetResults()
		if err == nil && res == nil {
			err = errNoResult
		}
		if err == nil {
			switch r := res.(type) {
			case *pgconn.StatementDescription:
				s.sd = r
			case *pgconn.ResultReader:
				if s.read != nil {
					err = s.read(r)
				} else {
					rr := r.Read()
					s.rows, err = rr.Rows, rr.Err
				}
			}
		}
		if err != nil {
			failed, first = s, err
			break
		}
		s.done = true
	}
	if err := p.Close(); err != nil && first == nil {
		first = err
	}
	return failed, first
}

// textParams encodes text parameters.
func textParams(args []string) [][]byte {
	params := make([][]byte, len(args))
	for i, a := range args {
		params[i] = []byte(a)
	}
	return params
}
