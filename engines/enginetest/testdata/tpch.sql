-- A small, deterministic TPC-H dataset for the PostgreSQL TPC-H tests (no
-- dbgen): the standard schema in the private schema dbeast_tpch, which
-- enginetest.LoadPostgresTPCH renames to the schema a test asks for,
-- filled by arithmetic on generate_series so every run produces the same
-- rows. Values follow the specification's domains (nations, regions,
-- segments, priorities, ship modes, brand/type/container words), and a few
-- parts, suppliers and customers are shaped so that every query's
-- validation parameters select some rows. 40 suppliers, 600 parts, 2,400
-- partsupp, 300 customers (a third without orders, as in dbgen), 3,000
-- orders, about 12,000 lines.
DROP SCHEMA IF EXISTS dbeast_tpch CASCADE;
CREATE SCHEMA dbeast_tpch;

CREATE TABLE dbeast_tpch.region (r_regionkey integer PRIMARY KEY, r_name char(25) NOT NULL, r_comment varchar(152));
CREATE TABLE dbeast_tpch.nation (n_nationkey integer PRIMARY KEY, n_name char(25) NOT NULL, n_regionkey integer NOT NULL, n_comment varchar(152));
CREATE TABLE dbeast_tpch.supplier (s_suppkey integer PRIMARY KEY, s_name char(25) NOT NULL, s_address varchar(40) NOT NULL,
  s_nationkey integer NOT NULL, s_phone char(15) NOT NULL, s_acctbal decimal(15,2) NOT NULL, s_comment varchar(101) NOT NULL);
CREATE TABLE dbeast_tpch.part (p_partkey integer PRIMARY KEY, p_name varchar(55) NOT NULL, p_mfgr char(25) NOT NULL,
  p_brand char(10) NOT NULL, p_type varchar(25) NOT NULL, p_size integer NOT NULL, p_container char(10) NOT NULL,
  p_retailprice decimal(15,2) NOT NULL, p_comment varchar(23) NOT NULL);
CREATE TABLE dbeast_tpch.partsupp (ps_partkey integer NOT NULL, ps_suppkey integer NOT NULL, ps_availqty integer NOT NULL,
  ps_supplycost decimal(15,2) NOT NULL, ps_comment varchar(199) NOT NULL, PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE dbeast_tpch.customer (c_custkey integer PRIMARY KEY, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL,
  c_nationkey integer NOT NULL, c_phone char(15) NOT NULL, c_acctbal decimal(15,2) NOT NULL, c_mktsegment char(10) NOT NULL,
  c_comment varchar(117) NOT NULL);
CREATE TABLE dbeast_tpch.orders (o_orderkey integer PRIMARY KEY, o_custkey integer NOT NULL, o_orderstatus char(1) NOT NULL,
  o_totalprice decimal(15,2) NOT NULL, o_orderdate date NOT NULL, o_orderpriority char(15) NOT NULL, o_clerk char(15) NOT NULL,
  o_shippriority integer NOT NULL, o_comment varchar(79) NOT NULL);
CREATE TABLE dbeast_tpch.lineitem (l_orderkey integer NOT NULL, l_partkey integer NOT NULL, l_suppkey integer NOT NULL,
  l_linenumber integer NOT NULL, l_quantity decimal(15,2) NOT NULL, l_extendedprice decimal(15,2) NOT NULL,
  l_discount decimal(15,2) NOT NULL, l_tax decimal(15,2) NOT NULL, l_returnflag char(1) NOT NULL, l_linestatus char(1) NOT NULL,
  l_shipdate date NOT NULL, l_commitdate date NOT NULL, l_receiptdate date NOT NULL, l_shipinstruct char(25) NOT NULL,
  l_shipmode char(10) NOT NULL, l_comment varchar(44) NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber));

INSERT INTO dbeast_tpch.region VALUES (0, 'AFRICA', 'r0'), (1, 'AMERICA', 'r1'), (2, 'ASIA', 'r2'), (3, 'EUROPE', 'r3'), (4, 'MIDDLE EAST', 'r4');
INSERT INTO dbeast_tpch.nation VALUES (0, 'ALGERIA', 0, 'n'), (1, 'ARGENTINA', 1, 'n'), (2, 'BRAZIL', 1, 'n'), (3, 'CANADA', 1, 'n'),
  (4, 'EGYPT', 4, 'n'), (5, 'ETHIOPIA', 0, 'n'), (6, 'FRANCE', 3, 'n'), (7, 'GERMANY', 3, 'n'), (8, 'INDIA', 2, 'n'),
  (9, 'INDONESIA', 2, 'n'), (10, 'IRAN', 4, 'n'), (11, 'IRAQ', 4, 'n'), (12, 'JAPAN', 2, 'n'), (13, 'JORDAN', 4, 'n'),
  (14, 'KENYA', 0, 'n'), (15, 'MOROCCO', 0, 'n'), (16, 'MOZAMBIQUE', 0, 'n'), (17, 'PERU', 1, 'n'), (18, 'CHINA', 2, 'n'),
  (19, 'ROMANIA', 3, 'n'), (20, 'SAUDI ARABIA', 4, 'n'), (21, 'VIETNAM', 2, 'n'), (22, 'RUSSIA', 3, 'n'),
  (23, 'UNITED KINGDOM', 3, 'n'), (24, 'UNITED STATES', 1, 'n');

INSERT INTO dbeast_tpch.supplier
SELECT s, 'Supplier#' || lpad(s::text, 9, '0'), 'addr ' || s, (s * 7) % 25,
  lpad((10 + (s * 7) % 25)::text, 2, '0') || '-' || (100 + s * 13 % 900) || '-' || (100 + s * 31 % 900) || '-' || (1000 + s * 17 % 9000),
  ((s * 3701) % 1099999) / 100.0 - 999.99,
  CASE WHEN s % 13 = 0 THEN 'careful Customer slyly Complaints ' || s ELSE 'regular deposits ' || s END
FROM generate_series(1, 40) s;

INSERT INTO dbeast_tpch.part
SELECT p,
  (ARRAY['forest', 'green', 'blue', 'almond', 'antique', 'khaki', 'linen', 'misty'])[1 + p % 8] || ' ' ||
  (ARRAY['green', 'navy', 'olive', 'forest', 'peach', 'rose'])[1 + (p / 8) % 6],
  'Manufacturer#' || (1 + p % 5), 'Brand#' || (1 + p % 5) || (1 + (p / 5) % 5),
  (ARRAY['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'])[1 + (p / 3) % 6] || ' ' ||
  (ARRAY['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'])[1 + (p / 2) % 5] || ' ' ||
  (ARRAY['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'])[1 + (p / 7) % 5],
  1 + (p * 7) % 50,
  (ARRAY['SM', 'LG', 'MED', 'JUMBO', 'WRAP'])[1 + (p / 11) % 5] || ' ' ||
  (ARRAY['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM'])[1 + (p / 4) % 8],
  (90000 + ((p / 10) % 20001) + 100 * (p % 1000)) / 100.0, 'part ' || p
FROM generate_series(1, 600) p;
-- Parts shaped for Q2, Q8, Q17 and Q19's parameters.
UPDATE dbeast_tpch.part SET p_size = 15, p_type = 'ECONOMY PLATED BRASS' WHERE p_partkey % 40 = 3;
UPDATE dbeast_tpch.part SET p_type = 'ECONOMY ANODIZED STEEL' WHERE p_partkey % 40 = 5;
UPDATE dbeast_tpch.part SET p_brand = 'Brand#23', p_container = 'MED BOX', p_size = 7 WHERE p_partkey % 40 = 7;
UPDATE dbeast_tpch.part SET p_brand = 'Brand#12', p_container = 'SM BOX', p_size = 3 WHERE p_partkey % 40 = 9;
UPDATE dbeast_tpch.part SET p_brand = 'Brand#34', p_container = 'LG PACK', p_size = 12 WHERE p_partkey % 40 = 11;

INSERT INTO dbeast_tpch.partsupp
SELECT p, 1 + (p * 3 + i * 10) % 40, 1 + (p * (i + 1) * 17) % 9999, 1 + ((p * 31 + i * 7) % 100000) / 100.0, 'ps ' || p || ' ' || i
FROM generate_series(1, 600) p, generate_series(0, 3) i;

INSERT INTO dbeast_tpch.customer
SELECT c, 'Customer#' || lpad(c::text, 9, '0'), 'caddr ' || c, c % 25,
  lpad((10 + c % 25)::text, 2, '0') || '-' || (100 + c * 7 % 900) || '-' || (100 + c * 11 % 900) || '-' || (1000 + c * 19 % 9000),
  ((c * 7919) % 1099999) / 100.0 - 999.99,
  (ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'])[1 + c % 5], 'customer ' || c
FROM generate_series(1, 300) c;

-- Orders go to customers whose key is not a multiple of three.
INSERT INTO dbeast_tpch.orders
SELECT o, 3 * (((o * 7) % 200) / 2) + 1 + ((o * 7) % 200) % 2, 'O', 0,
  date '1992-01-01' + (o * 97) % 2405,
  (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[1 + o % 5],
  'Clerk#' || lpad((1 + o % 50)::text, 9, '0'), 0,
  CASE WHEN o % 7 = 0 THEN 'pending special foxes requests ' || o ELSE 'final deposits ' || o END
FROM generate_series(1, 3000) o;

INSERT INTO dbeast_tpch.lineitem
SELECT o.o_orderkey, lp.pk, 1 + (lp.pk * 3 + (l % 4) * 10) % 40, l, lq.q,
  round(lq.q * (900 + (lp.pk % 1000) / 10.0), 2),
  ((o.o_orderkey + l) % 11) / 100.0, ((o.o_orderkey * l) % 9) / 100.0,
  CASE WHEN sd.ship + 1 + (o.o_orderkey * l * 3) % 30 <= date '1995-06-17'
    THEN (ARRAY['R', 'A'])[1 + (o.o_orderkey + l) % 2] ELSE 'N' END,
  CASE WHEN sd.ship > date '1995-06-17' THEN 'O' ELSE 'F' END,
  sd.ship, o.o_orderdate + 30 + (o.o_orderkey + l) % 61, sd.ship + 1 + (o.o_orderkey * l * 3) % 30,
  (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[1 + (o.o_orderkey + l) % 4],
  (ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[1 + (o.o_orderkey * l) % 7],
  'line ' || o.o_orderkey || ' ' || l
FROM dbeast_tpch.orders o
CROSS JOIN LATERAL generate_series(1, 1 + (o.o_orderkey * 5) % 7) l
CROSS JOIN LATERAL (SELECT 1 + (o.o_orderkey * 13 + l * 29) % 600 AS pk) lp
CROSS JOIN LATERAL (SELECT (1 + (o.o_orderkey * l * 11) % 50)::numeric AS q) lq
CROSS JOIN LATERAL (SELECT o.o_orderdate + 1 + (o.o_orderkey * l) % 121 AS ship) sd;

UPDATE dbeast_tpch.orders o SET
  o_orderstatus = CASE WHEN s.f = s.n THEN 'F' WHEN s.f = 0 THEN 'O' ELSE 'P' END,
  o_totalprice = s.total
FROM (SELECT l_orderkey, count(*) AS n, count(*) FILTER (WHERE l_linestatus = 'F') AS f,
        sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)) AS total
      FROM dbeast_tpch.lineitem GROUP BY l_orderkey) s
WHERE s.l_orderkey = o.o_orderkey;
ANALYZE dbeast_tpch.region, dbeast_tpch.nation, dbeast_tpch.supplier, dbeast_tpch.part, dbeast_tpch.partsupp,
  dbeast_tpch.customer, dbeast_tpch.orders, dbeast_tpch.lineitem;
