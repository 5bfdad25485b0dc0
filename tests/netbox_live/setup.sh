#!/bin/sh
# Build the NetBox cache the live test uses (tests/test_netbox_live.py): a venv with
# NetBox from PyPI on Python 3.12, a PostgreSQL cluster with the migrated database, the
# planner's login and API token.  Minutes the first time; a no-op once built.
#   apt-get install -y postgresql redis-server   (first, as root)
#   sh tests/netbox_live/setup.sh                 (WORKBENCH_NETBOX_CACHE=DIR to move it)
set -e
cd "$(dirname "$0")"
exec "${PYTHON:-python3}" harness.py "$@"
