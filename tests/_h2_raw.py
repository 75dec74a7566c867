"""A raw HTTP/2 gRPC client for the tests of hostile clients: it grants the server only the
flow-control window it is told to (0: the server can send no response message), answers the
server's SETTINGS and PINGs (so keepalive does not drop it), and records how each stream ended.

No HPACK decoding: a stream's end is seen as a HEADERS frame with END_STREAM (its trailers) or
an RST_STREAM; headers are sent as literals without indexing (no dependency on the h2 package).
"""
from __future__ import annotations

import socket
import struct
import threading
from typing import Any

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY = 0x0, 0x1, 0x3, 0x4, 0x6, 0x7
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4
SETTINGS_ENABLE_PUSH, SETTINGS_INITIAL_WINDOW_SIZE = 0x2, 0x4


def _integer(value: int, prefix_bits: int) -> bytes:
    """HPACK's integer with a `prefix_bits` prefix (RFC 7541 §5.1), the prefix's other bits 0."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([value])
    out, value = bytearray([limit]), value - limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def _literal(name: str, value: str) -> bytes:
    """A header field as a literal without indexing, new name, no Huffman (RFC 7541 §6.2.2)."""
    n, v = name.encode(), value.encode()
    return b"\x00" + _integer(len(n), 7) + n + _integer(len(v), 7) + v


def grpc_frame(message: bytes) -> bytes:
    return b"\x00" + struct.pack(">I", len(message)) + message


class RawGrpc:
    """One HTTP/2 connection; ``window``: the initial stream window granted to the server (and no
    WINDOW_UPDATE ever after), so with 0 no response message can come."""

    def __init__(self, port: int, window: int = 0):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self._lock = threading.Lock()
        self._next_id = 1
        self.ended: dict[int, str] = {}      # stream id -> "trailers" or "reset"
        self.data: dict[int, int] = {}       # stream id -> DATA bytes received
        self.closed = threading.Event()
        settings = struct.pack(">HI", SETTINGS_ENABLE_PUSH, 0) + struct.pack(">HI", SETTINGS_INITIAL_WINDOW_SIZE, window)
        self._send(PREFACE + self._frame(SETTINGS, 0, 0, settings))
        threading.Thread(target=self._read, daemon=True).start()

    @staticmethod
    def _frame(kind: int, flags: int, stream: int, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload

    def _send(self, data: bytes) -> None:
        with self._lock:
            self.sock.sendall(data)

    def _recv_exactly(self, size: int) -> bytes:
        chunks = b""
        while len(chunks) < size:
            chunk = self.sock.recv(size - len(chunks))
            if not chunk:
                raise OSError("closed")
            chunks += chunk
        return chunks

    def _read(self) -> None:
        try:
            while True:
                header = self._recv_exactly(9)
                length = int.from_bytes(header[:3], "big")
                kind, flags, stream = header[3], header[4], struct.unpack(">I", header[5:])[0] & 0x7FFFFFFF
                payload = self._recv_exactly(length) if length else b""
                if kind == SETTINGS and not flags & ACK:
                    self._send(self._frame(SETTINGS, ACK, 0, b""))
                elif kind == PING and not flags & ACK:
                    self._send(self._frame(PING, ACK, 0, payload))
                elif kind == DATA:
                    self.data[stream] = self.data.get(stream, 0) + length
                elif kind == HEADERS and flags & END_STREAM:
                    self.ended[stream] = "trailers"
                elif kind == RST_STREAM:
                    self.ended[stream] = "reset"
                elif kind == GOAWAY:
                    break
        except OSError:
            pass
        finally:
            self.closed.set()

    def call(self, path: str, message: bytes | None = b"", *, end: bool = True,
             metadata: tuple[tuple[str, str], ...] = ()) -> int:
        """Open a call to `path`; send `message` (None: none, headers only) and, with `end`, close
        the client's side. Returns the stream id."""
        headers = [(":method", "POST"), (":scheme", "http"), (":path", path), (":authority", "localhost"),
                   ("content-type", "application/grpc"), ("te", "trailers"), *metadata]
        block = b"".join(_literal(name, value) for name, value in headers)
        with self._lock:
            stream, self._next_id = self._next_id, self._next_id + 2
        out = self._frame(HEADERS, END_HEADERS | (END_STREAM if message is None and end else 0), stream, block)
        if message is not None:
            out += self._frame(DATA, END_STREAM if end else 0, stream, grpc_frame(message))
        self._send(out)
        return stream

    def send(self, stream: int, message: bytes, *, end: bool = False) -> None:
        self._send(self._frame(DATA, END_STREAM if end else 0, stream, grpc_frame(message)))

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self) -> RawGrpc:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
