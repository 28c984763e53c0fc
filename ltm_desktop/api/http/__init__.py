"""The HTTP API: five loopback-only routes over the same dispatcher as the socket API.

``app`` builds the Starlette application, ``guard`` refuses foreign hosts, origins and
requests without the bearer token, ``routes`` translates each route into a socket
method, and ``server`` runs it all with uvicorn on a thread of its own.
"""
