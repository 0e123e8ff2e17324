#!/usr/bin/env bash
# Finds or starts the MySQL server the tests use and prints its URL on stdout.
# Order: a server already answering on 127.0.0.1:3306 as root without a password
# (our machines); else start the installed mariadbd; else install mariadb-server
# (Debian: it starts nothing by itself, and its root signs in only through the unix
# socket, so a TCP user for the tests is created through that socket).
set -euo pipefail
host=127.0.0.1 port=3306
test_user=impianti_test test_pass=impianti_test
log() { echo "ensure-mysql: $*" >&2; }

can_tcp() { mysql --protocol=TCP -h"$host" -P"$port" -u"$1" ${2:+-p"$2"} -e 'SELECT 1' >/dev/null 2>&1; }

wait_up() {
  for _ in $(seq 1 60); do
    mysqladmin --protocol=TCP -h"$host" -P"$port" ping >/dev/null 2>&1 && return 0
    mysqladmin ping >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  log "the server did not come up within 30 s"; return 1
}

start_server() {
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld 2>/dev/null || true
  log "starting mariadbd"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql >&2
  wait_up
}

if ! command -v mysql >/dev/null 2>&1 || [ ! -x /usr/sbin/mariadbd ]; then
  log "installing mariadb-server with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq mariadb-server mariadb-client >&2
fi

if ! mysqladmin --protocol=TCP -h"$host" -P"$port" ping >/dev/null 2>&1; then start_server; fi

if can_tcp root ""; then
  echo "mysql://root@$host:$port/test"; exit 0
fi
if ! can_tcp "$test_user" "$test_pass"; then
  log "root has no TCP login here; creating $test_user through the unix socket"
  mysql -uroot <<SQL
CREATE USER IF NOT EXISTS '$test_user'@'127.0.0.1' IDENTIFIED BY '$test_pass';
CREATE USER IF NOT EXISTS '$test_user'@'localhost' IDENTIFIED BY '$test_pass';
GRANT ALL PRIVILEGES ON *.* TO '$test_user'@'127.0.0.1';
GRANT ALL PRIVILEGES ON *.* TO '$test_user'@'localhost';
CREATE DATABASE IF NOT EXISTS test;
SQL
fi
echo "mysql://$test_user:$test_pass@$host:$port/test"
