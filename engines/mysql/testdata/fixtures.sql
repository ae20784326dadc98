-- Fixtures for engines/mysql tests. Statements end with ";" at the end of
-- a line; the test runs them one by one (never as a multi-statement batch).
-- Works on MariaDB 10.3+ and MySQL 8; MariaDB-only fixtures (Aria) are made
-- by the test itself.
DROP DATABASE IF EXISTS dbeast_myengine;
DROP DATABASE IF EXISTS dbeast_myengine_other;
CREATE DATABASE dbeast_myengine CHARACTER SET utf8mb4;
CREATE DATABASE dbeast_myengine_other CHARACTER SET utf8mb4;

-- Eligible tables.
CREATE TABLE dbeast_myengine.items (id INT PRIMARY KEY, name VARCHAR(50) NOT NULL, price DECIMAL(10,2), doc JSON) ENGINE=InnoDB;
INSERT INTO dbeast_myengine.items VALUES (1, 'apple', 1.50, '{"k": 1}'), (2, 'pear', 2.25, NULL), (3, 'plum', NULL, '[]');
CREATE TABLE dbeast_myengine.vals (id INT PRIMARY KEY, d DECIMAL(65,30), u BIGINT UNSIGNED, bi BIGINT, ts DATETIME(6), j JSON, vb VARBINARY(16), bl BLOB, t TEXT, f DOUBLE, bt BIT(8)) ENGINE=InnoDB;
INSERT INTO dbeast_myengine.vals VALUES (1, 12345678901234567890123456789012345.123456789012345678901234567891, 18446744073709551615, -9223372036854775808, '2024-02-29 23:59:59.123456', '{"a": [1, 2.50, "x"]}', 0x00FF10, 0xDEADBEEF, 'héllo ✓', 0.1, b'00000101');
INSERT INTO dbeast_myengine.vals VALUES (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
CREATE TABLE dbeast_myengine.big (id INT PRIMARY KEY, s VARCHAR(200)) ENGINE=InnoDB;
INSERT INTO dbeast_myengine.big WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 600) SELECT n, REPEAT('x', 100) FROM c;
CREATE TABLE dbeast_myengine.counter (id INT PRIMARY KEY, n INT NOT NULL) ENGINE=InnoDB;
INSERT INTO dbeast_myengine.counter VALUES (1, 0), (2, 0);
CREATE TABLE dbeast_myengine.victim (id INT) ENGINE=InnoDB;
CREATE TABLE dbeast_myengine.altered (id INT, a INT) ENGINE=InnoDB;
CREATE TABLE dbeast_myengine.recreated (id INT, a INT) ENGINE=InnoDB;
CREATE TABLE dbeast_myengine.lockme (id INT) ENGINE=InnoDB;
INSERT INTO dbeast_myengine.lockme VALUES (1);
CREATE TABLE dbeast_myengine.`we-ird.name` (id INT) ENGINE=InnoDB;

-- Ineligible tables.
CREATE TABLE dbeast_myengine.my_myisam (id INT) ENGINE=MyISAM;
CREATE TABLE dbeast_myengine.my_memory (id INT) ENGINE=MEMORY;
CREATE TABLE dbeast_myengine.parted (id INT) ENGINE=InnoDB PARTITION BY HASH(id) PARTITIONS 2;
CREATE TABLE dbeast_myengine.gen_virtual (a INT, b INT AS (a + 1) VIRTUAL) ENGINE=InnoDB;
CREATE TABLE dbeast_myengine.gen_stored (a INT, b INT AS (a + 1) STORED) ENGINE=InnoDB;
CREATE VIEW dbeast_myengine.v_items AS SELECT id, name FROM dbeast_myengine.items;
CREATE TABLE dbeast_myengine_other.secret (id INT) ENGINE=InnoDB;
INSERT INTO dbeast_myengine_other.secret VALUES (42);

-- Restricted accounts (test-only passwords). dbeast_nolock lacks LOCK
-- TABLES; dbeast_noproc lacks PROCESS.
DROP USER IF EXISTS 'dbeast_nolock'@'%';
DROP USER IF EXISTS 'dbeast_nolock'@'localhost';
DROP USER IF EXISTS 'dbeast_noproc'@'%';
DROP USER IF EXISTS 'dbeast_noproc'@'localhost';
CREATE USER 'dbeast_nolock'@'%' IDENTIFIED BY 'dbeast_nolock_pw';
CREATE USER 'dbeast_nolock'@'localhost' IDENTIFIED BY 'dbeast_nolock_pw';
CREATE USER 'dbeast_noproc'@'%' IDENTIFIED BY 'dbeast_noproc_pw';
CREATE USER 'dbeast_noproc'@'localhost' IDENTIFIED BY 'dbeast_noproc_pw';
GRANT SELECT ON dbeast_myengine.* TO 'dbeast_nolock'@'%';
GRANT SELECT ON dbeast_myengine.* TO 'dbeast_nolock'@'localhost';
GRANT PROCESS ON *.* TO 'dbeast_nolock'@'%';
GRANT PROCESS ON *.* TO 'dbeast_nolock'@'localhost';
GRANT SELECT, LOCK TABLES ON dbeast_myengine.* TO 'dbeast_noproc'@'%';
GRANT SELECT, LOCK TABLES ON dbeast_myengine.* TO 'dbeast_noproc'@'localhost';
