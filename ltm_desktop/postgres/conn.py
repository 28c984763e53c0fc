"""The connection type every module of the engine is handed (rows as tuples)."""

from __future__ import annotations

from psycopg import Connection
from psycopg.rows import TupleRow

Conn = Connection[TupleRow]
