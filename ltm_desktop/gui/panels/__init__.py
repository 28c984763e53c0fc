"""The tabs and side panels that follow the selected scope: activity, history, observations, overview, precis, projects, stale, trash."""
