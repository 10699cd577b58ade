"""What a peer (or an attacker) puts on the wire, built independently of
volery's C code: the sealed frame of include/wire/seal.h, with libsodium
through ctypes and BLAKE2b from hashlib, and UDP datagrams with a forged
source address (a raw socket, as root), to replay a node's own datagrams
as if they came from it.
"""
import base64
import ctypes
import ctypes.util
import hashlib
import socket
import struct

_sodium = ctypes.CDLL(ctypes.util.find_library("sodium") or "libsodium.so.23")
_sodium.sodium_init()

MAGIC = b"VLS1"
TAG = 16


def read_key(path):
    with open(path) as f:
        return base64.b64decode(f.read().strip())


def key_id(key):
    return hashlib.blake2b(b"volery key id", digest_size=4, key=key).digest()


def _ad(header, to):
    to = (to or "").encode()
    return header + bytes([len(to)]) + to


def seal(key, sender, incarnation, seq, sent_ms, text, to=None):
    """A frame as `sender` would send it: odd seq for a broadcast, even
    for a unicast to the node called `to`."""
    name = sender.encode()
    header = (MAGIC + key_id(key) + struct.pack(">QQq", incarnation, seq, sent_ms)
              + bytes([len(name)]) + name)
    ad = _ad(header, to if seq % 2 == 0 else None)
    nonce = hashlib.blake2b(ad, digest_size=24).digest()
    out = ctypes.create_string_buffer(len(text) + TAG)
    outlen = ctypes.c_ulonglong()
    if _sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(
            out, ctypes.byref(outlen), text, ctypes.c_ulonglong(len(text)),
            ad, ctypes.c_ulonglong(len(ad)), None, nonce, key) != 0:
        raise RuntimeError("seal failed")
    return header + out.raw[:outlen.value]


def peek(frame):
    """(sender, incarnation, seq, sent_ms) of a frame, or None."""
    if len(frame) < 33 or frame[:4] != MAGIC:
        return None
    inc, seq, sent = struct.unpack(">QQq", frame[8:32])
    n = frame[32]
    return frame[33:33 + n].decode(errors="replace"), inc, seq, sent


def open_frame(key, frame, me=None):
    """The text of a frame, or None if it does not open with key."""
    h = peek(frame)
    if h is None:
        return None
    hlen = 33 + len(h[0].encode())
    ad = _ad(frame[:hlen], me if h[2] % 2 == 0 else None)
    nonce = hashlib.blake2b(ad, digest_size=24).digest()
    body = frame[hlen:]
    out = ctypes.create_string_buffer(max(len(body), 1))
    outlen = ctypes.c_ulonglong()
    if _sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
            out, ctypes.byref(outlen), None, body, ctypes.c_ulonglong(len(body)),
            ad, ctypes.c_ulonglong(len(ad)), nonce, key) != 0:
        return None
    return out.raw[:outlen.value]


def envelope(key, frame, flag=1, addr=("10.9.9.9", 4444)):
    """A relay's envelope (include/wire/relayenv.h) around a sealed frame,
    vouched for with the relay key of key."""
    relay_key = hashlib.blake2b(b"volery relay key", digest_size=32,
                                key=key).digest()
    head = (b"VRL1" + bytes([flag]) + socket.inet_aton(addr[0])
            + struct.pack(">H", addr[1]))
    tag = hashlib.blake2b(head + frame, digest_size=16, key=relay_key).digest()
    return head + tag + frame


def send_spoofed(src, dst, payload):
    """A UDP datagram from src (ip, port) to dst, whatever our own address
    is: what an attacker on the LAN replays a captured datagram with."""
    udp = struct.pack(">HHHH", src[1], dst[1], 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64,
                     socket.IPPROTO_UDP, 0, socket.inet_aton(src[0]),
                     socket.inet_aton(dst[0]))
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    try:
        s.sendto(ip + udp, (dst[0], 0))
    finally:
        s.close()


class Capture:
    """Listen on a cluster's peer port, as any host on the LAN can, and
    keep every datagram with its source."""

    def __init__(self, port):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("0.0.0.0", port))
        self.sock.settimeout(0.2)
        self.port = port
        self.frames = []

    def read(self, until):
        """Read datagrams until until(frames) is true (or 20 s)."""
        import time
        deadline = time.monotonic() + 20
        while not until(self.frames):
            if time.monotonic() > deadline:
                raise AssertionError("captured only %d datagrams" % len(self.frames))
            try:
                data, src = self.sock.recvfrom(65536)
            except socket.timeout:
                continue
            self.frames.append((data, src))
        return self.frames

    def close(self):
        self.sock.close()


def _b64url(text):
    return base64.urlsafe_b64decode(text)


class Identity:
    """A node's identity as include/wire/ident.h lays it out: an Ed25519
    key (libsodium) and the admin's certificate line for it."""

    def __init__(self, seed=None):
        import os
        self.seed = seed or os.urandom(32)
        self.pk = ctypes.create_string_buffer(32)
        self.sk = ctypes.create_string_buffer(64)
        _sodium.crypto_sign_seed_keypair(self.pk, self.sk, self.seed)
        self.cert = None

    def public(self):
        return base64.urlsafe_b64encode(self.pk.raw).decode()

    def certify(self, cert_line):
        """Take the line `volery enroll` printed: kept in binary."""
        word, name, pk, expires, maxrep, sig = cert_line.split()
        assert word == "volery-cert1" and _b64url(pk) == self.pk.raw
        n = name.encode()
        self.cert = (bytes([len(n)]) + n + self.pk.raw +
                     struct.pack(">qI", int(expires), int(maxrep)) + _b64url(sig))

    def sign_run(self, rec):
        """The signature its runner makes over a record's run (the run
        statement of src/core/authorship.c), the record a dict of its
        fields: what a certified node can sign of a run it claims."""
        def text(s):
            b = s.encode()
            return struct.pack(">Q", len(b) + 1) + b

        def num(v):
            return struct.pack(">q", int(v))
        states = ("Submitted", "Ready", "Running", "Terminated", "Cancelled", "Failed")
        outs = rec["out"].split(",") if rec.get("out") else []
        d = hashlib.blake2b(digest_size=32)
        for part in (text("volery-run1"), text(rec["id"]), num(states.index(rec["st"])),
                     text(rec.get("on", "")), num(rec.get("stt", -1)),
                     num(rec.get("end", -1)), num(len(outs))):
            d.update(part)
        for o in outs:
            d.update(text(o))
        for part in (text(rec.get("rsn", "")), num(rec.get("ws", -1)),
                     num(rec.get("cpu", -1)), num(rec.get("rss", -1))):
            d.update(part)
        sig = ctypes.create_string_buffer(64)
        _sodium.crypto_sign_detached(sig, None, d.digest(), ctypes.c_ulonglong(32), self.sk)
        return base64.urlsafe_b64encode(sig.raw).decode().rstrip("=")

    def authenticator(self, sender, incarnation, seq, sent_ms, text, to=None):
        """'S': the certificate, a signature over the frame's digest and an
        empty MAC list (we claim to know no one)."""
        d = hashlib.blake2b(digest_size=32)
        d.update(b"volery-frame1")
        d.update(bytes([len(sender)]) + sender.encode())
        d.update(struct.pack(">QQq", incarnation, seq, sent_ms))
        t = (to or "").encode() if seq % 2 == 0 else b""
        d.update(bytes([len(t)]) + t)
        d.update(text)
        macs = b"\0\0"
        m = d.digest() + macs
        sig = ctypes.create_string_buffer(64)
        _sodium.crypto_sign_detached(sig, None, m, ctypes.c_ulonglong(len(m)), self.sk)
        body = b"S" + self.cert + sig.raw + macs
        return body + struct.pack(">H", len(body) + 2)


class KeyHolder:
    """A host that holds the cluster key (a compromised workstation): it
    seals whatever it likes under a name of its choice, from its own UDP
    socket; with an Identity, certified by the admin, it signs it too."""

    def __init__(self, key, cluster, port, name="mallory", identity=None):
        import time
        self.key, self.cluster, self.port, self.name = key, cluster, port, name
        self.identity = identity
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.incarnation = int(time.time() * 1000)
        self.seq = 0

    def frame(self, body, sent_ms=None, name=None):
        """A sealed broadcast of body (type and arguments), stamped now
        by default, as name (ours by default)."""
        import time
        name = name or self.name
        self.seq += 1
        text = ("VOLERY/1 %s %s %016x %d %s" % (
            self.cluster, name, self.incarnation,
            self.sock.getsockname()[1], body)).encode()
        if sent_ms is None:
            sent_ms = int(time.time() * 1000)
        seq = 2 * self.seq + 1
        if self.identity is not None:
            text += self.identity.authenticator(name, self.incarnation, seq,
                                                sent_ms, text)
        return seal(self.key, name, self.incarnation, seq, sent_ms, text)

    def broadcast(self, body, sent_ms=None, name=None):
        self.sock.sendto(self.frame(body, sent_ms, name),
                         ("127.255.255.255", self.port))

    def wait_for(self, what, timeout=20):
        """Read what nodes send us (their replies come to our socket)
        until a datagram that opens holds what; its text."""
        import time
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                frame, _ = self.sock.recvfrom(65536)
            except socket.timeout:
                break
            text = open_frame(self.key, frame, self.name)
            if text is not None and what in text:
                return text
        raise AssertionError("no datagram to %s held %r" % (self.name, what))

    def close(self):
        self.sock.close()
