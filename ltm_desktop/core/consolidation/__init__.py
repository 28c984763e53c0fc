"""Consolidation: finding memories of a scope that say the same thing in different words
and proposing, for each group, one memory that replaces them all (design §9).

``grouping`` finds the groups (vectors and word overlap, through the store's nearest
neighbour reads, bounded per run); ``merge_entry`` checks the merged memory a model wrote;
``merge_review`` holds a merge as an Inbox proposal and decides it (approving supersedes
every member, compare-and-swap on their versions; undo brings them back);
``consolidator`` runs the whole thing. The model itself is asked on the agent side
(``ltm_desktop.agent.consolidation``): the core takes a callable and knows no HTTP.
"""
