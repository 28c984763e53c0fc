"""Search by words in PostgreSQL: the tsvector documents cut as the query parser cuts, and the searches."""
