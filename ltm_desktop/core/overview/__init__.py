"""The Overview's figures: how a scope's memories grew, who wrote them, and what they are."""
