# SPDX-License-Identifier: GPL-3.0-or-later
"""Protocol Buffers' wire format, the little of it a rank needs, in the standard library alone.

A rank of a user's program must not load gRPC or protobuf (they are not in every environment, and gRPC's fork
handler hangs a rank whose DataLoader forks workers), so the package writes the messages of
protocol/ringmaster/v1 itself: varints (negative int32/int64 as ten-byte two's complement, as protobuf does),
doubles as fixed64, strings, bytes and nested messages length-delimited, map entries as messages of key = 1 and
value = 2. Fields at their default (0, "", 0.0) are left out, as proto3 does. The reader turns a message into
{field number: [values]} for the few replies a rank reads.
"""

from __future__ import annotations

import struct
from typing import Dict, List, Mapping, Sequence, Tuple, Union

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5

_DOUBLE = struct.Struct("<d")
_LENGTH_PREFIX = struct.Struct("<I")


def _varint(value: int) -> bytes:
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_KEYS: Dict[Tuple[int, int], bytes] = {}


def _key(number: int, wire_type: int) -> bytes:
    key = _KEYS.get((number, wire_type))
    if key is None:
        key = _KEYS[(number, wire_type)] = _varint(number << 3 | wire_type)
    return key


class Message:
    """A message being written: fields are appended in the order called."""

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: List[bytes] = []

    def integer(self, number: int, value: int) -> "Message":
        """int32, int64, uint32, uint64 or bool."""
        if value:
            self._parts.append(_key(number, VARINT))
            self._parts.append(_varint(int(value)))
        return self

    def double(self, number: int, value: float) -> "Message":
        if value != 0.0 or value != value:  # NaN is not the default
            self._parts.append(_key(number, FIXED64))
            self._parts.append(_DOUBLE.pack(value))
        return self

    def text(self, number: int, value: str) -> "Message":
        if value:
            self.raw(number, value.encode("utf-8", "replace"))
        return self

    def raw(self, number: int, value: bytes) -> "Message":
        """A length-delimited field: bytes, or an encoded message (written even when empty)."""
        self._parts.append(_key(number, LENGTH))
        self._parts.append(_varint(len(value)))
        self._parts.append(value)
        return self

    def packed(self, number: int, values: Sequence[int]) -> "Message":
        """A repeated integer field, packed (zeros included: in a list they are values, not defaults)."""
        if values:
            self.raw(number, b"".join(_varint(int(v)) for v in values))
        return self

    def texts(self, number: int, values: Sequence[str]) -> "Message":
        """A repeated string field."""
        for value in values:
            self.raw(number, str(value).encode("utf-8", "replace"))
        return self

    def message(self, number: int, value: "Message") -> "Message":
        return self.raw(number, value.bytes())

    def text_map(self, number: int, entries: Mapping[str, str]) -> "Message":
        for key, value in entries.items():
            self.message(number, Message().text(1, str(key)).text(2, str(value)))
        return self

    def bytes(self) -> bytes:
        return b"".join(self._parts)


def frame(message: Message) -> bytes:
    """A message with its length in front, as the rank socket and record files carry it."""
    body = message.bytes()
    return _LENGTH_PREFIX.pack(len(body)) + body


Value = Union[int, bytes]


class WireError(ValueError):
    pass


def read_varint(data: bytes, at: int) -> Tuple[int, int]:
    value, shift = 0, 0
    while True:
        if at >= len(data) or shift > 63:
            raise WireError("a varint runs past the message")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def parse(data: bytes) -> Dict[int, List[Value]]:
    """A message's fields by number: varints and fixed values as unsigned ints, length-delimited ones as bytes."""
    fields: Dict[int, List[Value]] = {}
    at = 0
    while at < len(data):
        key, at = read_varint(data, at)
        number, wire_type = key >> 3, key & 7
        if wire_type == VARINT:
            value, at = read_varint(data, at)
        elif wire_type == FIXED64 or wire_type == FIXED32:
            size = 8 if wire_type == FIXED64 else 4
            if at + size > len(data):
                raise WireError("a fixed-size field runs past the message")
            value, at = int.from_bytes(data[at:at + size], "little"), at + size
        elif wire_type == LENGTH:
            size, at = read_varint(data, at)
            if at + size > len(data):
                raise WireError("a length-delimited field runs past the message")
            value, at = data[at:at + size], at + size
        else:
            raise WireError(f"wire type {wire_type} is not one protocol/ringmaster/v1 uses")
        fields.setdefault(number, []).append(value)
    return fields
