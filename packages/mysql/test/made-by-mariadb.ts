// A database made by another tool: the mariadb client (Debian's package) loading a .sql dump in the
// shapes users' databases have, as a user's would be.
import { execFileSync } from 'node:child_process';

/**
 * A small venue-booking database: composite keys, foreign keys (one cascading), a view, money as
 * DECIMAL(12,2), DATETIME and TIMESTAMP written under a session time zone of +05:30, names with
 * emoji (utf8mb4), a BIT(1) flag, a BIGINT UNSIGNED past 2^53, an ENUM, a generated column, comments.
 */
export const VENUES_SQL = `
SET NAMES utf8mb4;
SET time_zone = '+05:30';
CREATE TABLE venues (
  id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY COMMENT 'The venue''s number',
  name VARCHAR(120) NOT NULL,
  city VARCHAR(80) NOT NULL,
  capacity INT NOT NULL,
  step_free BIT(1) NOT NULL DEFAULT b'0',
  visits BIGINT UNSIGNED NOT NULL DEFAULT 0,
  UNIQUE KEY venues_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COMMENT='Places that can be booked';
CREATE TABLE rooms (
  venue_id INT UNSIGNED NOT NULL,
  room_no SMALLINT NOT NULL,
  label VARCHAR(60) NOT NULL,
  PRIMARY KEY (venue_id, room_no),
  CONSTRAINT rooms_venue FOREIGN KEY (venue_id) REFERENCES venues (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE TABLE bookings (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  venue_id INT UNSIGNED NOT NULL,
  room_no SMALLINT NOT NULL,
  guest VARCHAR(120) NOT NULL,
  status ENUM('held','confirmed','cancelled') NOT NULL DEFAULT 'held',
  price DECIMAL(12,2) NOT NULL,
  starts_at DATETIME NOT NULL,
  booked_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  nights INT NOT NULL DEFAULT 1,
  total DECIMAL(12,2) AS (price * nights) STORED,
  KEY bookings_room (venue_id, room_no),
  CONSTRAINT bookings_room FOREIGN KEY (venue_id, room_no) REFERENCES rooms (venue_id, room_no)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
CREATE VIEW confirmed_bookings AS SELECT id, guest, price FROM bookings WHERE status = 'confirmed';
INSERT INTO venues (id, name, city, capacity, step_free, visits) VALUES
  (1, 'Café Müller 🎷', 'Wuppertal', 120, b'1', 18446744073709551615),
  (2, 'The Blue Room', 'London', 40, b'0', 9007199254740993),
  (3, '東京ホール', 'Tokyo', 800, b'1', 0);
INSERT INTO rooms VALUES (1, 1, 'Main'), (1, 2, 'Back 🎸'), (2, 1, 'Blue'), (3, 10, '大ホール');
INSERT INTO bookings (venue_id, room_no, guest, status, price, starts_at, booked_at, nights) VALUES
  (1, 1, 'Zoë 🐙', 'confirmed', 1234.50, '2026-12-24 19:30:00', '2026-12-01 10:00:00', 2),
  (1, 2, 'Ola', 'held', 99.99, '2026-12-31 22:00:00', '2026-12-02 05:30:00', 1),
  (2, 1, 'Jonas', 'cancelled', 0.10, '2027-01-05 18:00:00', '2026-12-03 12:00:00', 3),
  (3, 10, '佐藤', 'confirmed', 50000.00, '2027-02-11 17:00:00', '2026-12-04 00:00:00', 1);
`;

export interface ClientTarget {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
}

/** Runs the mariadb client on `sql` against the database, as a person at a shell would. */
export function runMariadbClient(target: ClientTarget, sql: string): string {
  return execFileSync(
    'mariadb',
    [
      '--no-defaults',
      `--host=${target.host}`,
      `--port=${target.port}`,
      `--user=${target.user}`,
      '--batch',
      '--default-character-set=utf8mb4',
      target.database,
    ],
    {
      input: sql,
      env: { ...process.env, ...(target.password ? { MYSQL_PWD: target.password } : {}) },
      encoding: 'utf8',
    },
  );
}
