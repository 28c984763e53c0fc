"""The Inbox tab: proposals waiting for a person, edited, approved, rejected, undone."""
