"""The review inbox: extracted and merged proposals, held for a person, approved, rejected or reopened."""
