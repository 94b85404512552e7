"""
The download benchmark's reference (bench/files.ts): the least any HTTP server can do to send a file to curl
over this machine's loopback. It answers every request with the one file, its headers and then the file by
sendfile(2) straight from the page cache into the socket (no copy through user space, no framework, no
checks), one connection at a time. bench/files.ts times the same curl against it and against the node's
signed link, so the node's figure can be read against what the socket itself allows, not only against `cat`.

Usage: python3 sendfile-reference.py <file> <port>; prints "ready" once it listens.
"""

import os
import socket
import sys

path, port = sys.argv[1], int(sys.argv[2])
listener = socket.create_server(("127.0.0.1", port))
print("ready", flush=True)
while True:
    connection, _ = listener.accept()
    with connection:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = connection.recv(65536)
            if not chunk:
                break
            request += chunk
        if not request:
            continue
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            connection.sendall(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\n"
                + b"content-length: %d\r\nconnection: close\r\n\r\n" % size
            )
            try:
                connection.sendfile(file)
            except (BrokenPipeError, ConnectionResetError):
                pass
