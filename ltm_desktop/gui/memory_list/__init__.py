"""The central memory list: its table, filters, search box, selection and the state kept across reloads."""
