-- Fixture for engines/postgres tests. Run by TestMain under an advisory
-- lock; everything lives in the dbeast_pgengine schema, recreated each run.
DROP SCHEMA IF EXISTS dbeast_pgengine CASCADE;
CREATE SCHEMA dbeast_pgengine;

-- Eligible relations.
CREATE TABLE dbeast_pgengine.t (id int PRIMARY KEY, name text NOT NULL, amount numeric);
INSERT INTO dbeast_pgengine.t VALUES (1, 'Alpha', 1.50), (2, 'Beta', NULL), (3, 'Gamma', 3);
CREATE MATERIALIZED VIEW dbeast_pgengine.mv AS SELECT id, name FROM dbeast_pgengine.t;
CREATE VIEW dbeast_pgengine.v AS SELECT id, pg_catalog.lower(name) AS lname FROM dbeast_pgengine.t WHERE id > 1;
CREATE TABLE dbeast_pgengine.idx_ok (id int, j jsonb, tags text[], p point, note text);
CREATE INDEX ON dbeast_pgengine.idx_ok USING gin (j);
CREATE INDEX ON dbeast_pgengine.idx_ok USING gin (tags);
CREATE INDEX ON dbeast_pgengine.idx_ok USING gist (p);
CREATE INDEX ON dbeast_pgengine.idx_ok (pg_catalog.lower(note)) WHERE id > 0;
ALTER TABLE dbeast_pgengine.idx_ok ADD CHECK (pg_catalog.length(note) < 100);

-- Exact text values.
CREATE TABLE dbeast_pgengine.vals (id int PRIMARY KEY, n numeric, big int8, b bytea, ts timestamptz,
  iv interval, arr int[], j jsonb, u uuid, ip inet, f float8, tarr text[]);
INSERT INTO dbeast_pgengine.vals VALUES
 (1, 12345678901234567890.123456789, 9223372036854775807, '\xdeadbeef00', '2024-02-29 13:45:06.123456+00',
  '1 year 2 mons 3 days 04:05:06.789', '{1,2,NULL}', '{"b": 1, "a": [1, 2.50]}',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '192.168.0.1/24', 0.1, '{"x y","q\"z",NULL}'),
 (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

-- Refused relations.
CREATE TABLE dbeast_pgengine.rls (id int);
ALTER TABLE dbeast_pgengine.rls ENABLE ROW LEVEL SECURITY;
CREATE TABLE dbeast_pgengine.parted (id int) PARTITION BY RANGE (id);
CREATE TABLE dbeast_pgengine.part1 PARTITION OF dbeast_pgengine.parted FOR VALUES FROM (0) TO (100);
CREATE TABLE dbeast_pgengine.inh_parent (id int);
CREATE TABLE dbeast_pgengine.inh_child (extra int) INHERITS (dbeast_pgengine.inh_parent);
CREATE TABLE dbeast_pgengine.gen (a int, b int GENERATED ALWAYS AS (a * 2) STORED);
CREATE DOMAIN dbeast_pgengine.posint AS int CHECK (VALUE > 0);
CREATE TABLE dbeast_pgengine.dom (d dbeast_pgengine.posint);
CREATE TYPE dbeast_pgengine.mood AS ENUM ('sad', 'ok');
CREATE TABLE dbeast_pgengine.enm (m dbeast_pgengine.mood);
CREATE TYPE dbeast_pgengine.pair AS (a int, b int);
CREATE TABLE dbeast_pgengine.comp (p dbeast_pgengine.pair);
CREATE TABLE dbeast_pgengine.rng (r int4range);
CREATE TABLE dbeast_pgengine.unlogged_t (id int);
ALTER TABLE dbeast_pgengine.unlogged_t SET UNLOGGED;
CREATE FUNCTION dbeast_pgengine.f_imm(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 1';
CREATE TABLE dbeast_pgengine.idx_fn (a int);
CREATE INDEX ON dbeast_pgengine.idx_fn (dbeast_pgengine.f_imm(a));
CREATE TABLE dbeast_pgengine.idx_pred (a int);
CREATE INDEX ON dbeast_pgengine.idx_pred (a) WHERE dbeast_pgengine.f_imm(a) > 0;
CREATE TABLE dbeast_pgengine.chk_fn (a int CHECK (dbeast_pgengine.f_imm(a) > 0));
CREATE VIEW dbeast_pgengine.v_random AS SELECT id, pg_catalog.random() AS r FROM dbeast_pgengine.t;
CREATE VIEW dbeast_pgengine.v_userfn AS SELECT dbeast_pgengine.f_imm(id) AS x FROM dbeast_pgengine.t;
CREATE VIEW dbeast_pgengine.v_rls AS SELECT id FROM dbeast_pgengine.rls;
CREATE SEQUENCE dbeast_pgengine.seq;
DO $$BEGIN
  EXECUTE 'CREATE TABLE dbeast_pgengine.wide (' ||
    (SELECT string_agg('c' || i || ' int', ', ') FROM generate_series(1, 65) AS i) || ')';
END$$;

-- A chain of views: chain1 reads t, chainN reads chain(N-1).
CREATE VIEW dbeast_pgengine.chain1 AS SELECT id FROM dbeast_pgengine.t;
CREATE VIEW dbeast_pgengine.chain2 AS SELECT id FROM dbeast_pgengine.chain1;
CREATE VIEW dbeast_pgengine.chain3 AS SELECT id FROM dbeast_pgengine.chain2;
CREATE VIEW dbeast_pgengine.chain4 AS SELECT id FROM dbeast_pgengine.chain3;
CREATE VIEW dbeast_pgengine.chain5 AS SELECT id FROM dbeast_pgengine.chain4;
CREATE VIEW dbeast_pgengine.chain6 AS SELECT id FROM dbeast_pgengine.chain5;
CREATE VIEW dbeast_pgengine.chain7 AS SELECT id FROM dbeast_pgengine.chain6;
CREATE VIEW dbeast_pgengine.chain8 AS SELECT id FROM dbeast_pgengine.chain7;
CREATE VIEW dbeast_pgengine.chain9 AS SELECT id FROM dbeast_pgengine.chain8;

-- search_path shadowing: a lower(text) that writes to a log when called.
CREATE TABLE dbeast_pgengine.shadow_log (x text);
CREATE FUNCTION dbeast_pgengine.lower(text) RETURNS text LANGUAGE plpgsql VOLATILE AS
$$BEGIN INSERT INTO dbeast_pgengine.shadow_log VALUES ($1); RETURN 'shadowed'; END$$;

-- Tables the tests change.
CREATE TABLE dbeast_pgengine.pinned (id int, name text);
INSERT INTO dbeast_pgengine.pinned VALUES (1, 'one');
CREATE TABLE dbeast_pgengine.plan_t (id int, name text);
INSERT INTO dbeast_pgengine.plan_t VALUES (1, 'one');
CREATE TABLE dbeast_pgengine.lockt (id int);
INSERT INTO dbeast_pgengine.lockt VALUES (1);
CREATE TABLE dbeast_pgengine.lock2 (id int);
INSERT INTO dbeast_pgengine.lock2 VALUES (1);
CREATE TABLE dbeast_pgengine.wtab (id int PRIMARY KEY, name text);
INSERT INTO dbeast_pgengine.wtab VALUES (1, 'one'), (2, 'two');
CREATE TABLE dbeast_pgengine.victim (id int);

-- A role that may read t but not lock it.
DO $$BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'dbeast_nolock') THEN
    CREATE ROLE dbeast_nolock LOGIN;
  END IF;
END$$;
GRANT USAGE ON SCHEMA dbeast_pgengine TO dbeast_nolock;
GRANT SELECT ON dbeast_pgengine.t TO dbeast_nolock;
