#!/usr/bin/env python3
"""FastCGI requests to a PHP-FPM socket from one long-lived process, as a
web server sends them: a new connection per request (nginx's default,
`fastcgi_keep_conn off`), GET, no body. Used by scripts/bench_php_fpm.sh.

    fcgi_client.py SOCKET SCRIPT --body QUERY
    fcgi_client.py SOCKET SCRIPT --rounds N QUERY...

`--body` sends one request for SCRIPT with the query string QUERY and
prints the body. `--rounds` sends N rounds, each one request of every
QUERY in turn with the round's number (1..N) appended, and checks each
answer: a body ending in `:11211` or `ok`. A failed request (the worker
died, an error page) is counted and followed by a 0.5 s pause; a query
that failed three times is left out of the later rounds. Prints each query
that failed, with its count (`QUERY<TAB>N`). Standard library only.
"""

import socket
import struct
import sys
import time

BEGIN_REQUEST, END_REQUEST, PARAMS, STDIN, STDOUT = 1, 3, 4, 5, 6
RESPONDER = 1


def record(kind: int, content: bytes) -> bytes:
    """One FastCGI record of request 1 (content under 64 KiB, no padding)."""
    return struct.pack(">BBHHBx", 1, kind, 1, len(content), 0) + content


def name_value_pairs(params: dict) -> bytes:
    out = b""
    for name, value in params.items():
        name, value = name.encode(), value.encode()
        for part in (name, value):
            out += bytes([len(part)]) if len(part) < 128 else struct.pack(">I", len(part) | 0x80000000)
        out += name + value
    return out


def ask(path: str, script: str, query: str) -> bytes:
    """The body of one request, or raises OSError/ValueError when the
    connection ends before FPM's end-of-request record."""
    params = {
        "REQUEST_METHOD": "GET",
        "SCRIPT_FILENAME": script,
        "SCRIPT_NAME": "/" + script.rsplit("/", 1)[-1],
        "QUERY_STRING": query,
        "SERVER_PROTOCOL": "HTTP/1.1",
    }
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(60)
        sock.connect(path)
        sock.sendall(
            record(BEGIN_REQUEST, struct.pack(">HB5x", RESPONDER, 0))
            + record(PARAMS, name_value_pairs(params))
            + record(PARAMS, b"")
            + record(STDIN, b"")
        )
        buffered, stdout = b"", b""
        while True:
            while len(buffered) < 8:
                chunk = sock.recv(65536)
                if not chunk:
                    raise ValueError("the connection ended before the end of the request")
                buffered += chunk
            _, kind, _, length, padding = struct.unpack(">BBHHB", buffered[:7])
            while len(buffered) < 8 + length + padding:
                chunk = sock.recv(65536)
                if not chunk:
                    raise ValueError("the connection ended inside a record")
                buffered += chunk
            content = buffered[8 : 8 + length]
            buffered = buffered[8 + length + padding :]
            if kind == STDOUT:
                stdout += content
            elif kind == END_REQUEST:
                # The body follows the CGI headers.
                return stdout.replace(b"\r\n", b"\n").split(b"\n\n", 1)[-1]


def main() -> int:
    path, script, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    if mode == "--body":
        sys.stdout.buffer.write(ask(path, script, sys.argv[4]))
        return 0
    if mode != "--rounds":
        sys.exit(f"fcgi_client: unknown mode {mode!r} (--body or --rounds)")
    rounds, queries = int(sys.argv[4]), sys.argv[5:]
    failed = dict.fromkeys(queries, 0)
    for number in range(1, rounds + 1):
        for query in queries:
            if failed[query] >= 3:
                continue
            try:
                body = ask(path, script, f"{query}{number}").strip()
                good = body.endswith(b":11211") or body == b"ok"
            except (OSError, ValueError):
                good = False
            if not good:
                failed[query] += 1
                time.sleep(0.5)
    for query, count in failed.items():
        if count:
            print(f"{query}\t{count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
