"""The API tests' real server and client, for the privacy tests that go through the socket."""

from tests.api.conftest import client, server, short_dir, socket_path, start_server

__all__ = ["client", "server", "short_dir", "socket_path", "start_server"]
