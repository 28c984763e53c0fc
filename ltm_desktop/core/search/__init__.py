"""Search: the query language, words and meaning ranked together, recall, the cache, and the vectors' backfill."""
