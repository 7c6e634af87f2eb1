"""Netplay is no reflector (lua/retrolua/netplay_guard.lua): a host answers a HELLO whose sender has not
echoed its cookie with nothing but that cookie, no reply to an unproven address is larger than what it sent,
and a proven joiner's NEED flood gets each chunk at most once per round trip, under a per-peer byte budget.

A UDP source can be forged, so a test from one socket stands for any number of spoofed ones: hellos claiming
to be new peers (no cookie, a forged cookie, another protocol version) and NEED floods get back no more bytes
than they sent, and afterwards a real joiner still joins and plays to the same state.

Run: RETROLUA=$PWD/.build/debug/retrolua build/venv/bin/python -m pytest -q -p no:cacheprovider \
         Tests/python/test_netplay_guard.py
"""

import os
import socket
import struct
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_netplay import (BINARY, CHUNK, DEMO, NEED, WELCOME, Side, demo_identity, fnv, free_port,  # noqa: E402
                          header, hello_of, proven_hello)

pytestmark = pytest.mark.skipif(not (os.path.exists(BINARY) and os.path.exists(DEMO)),
                                reason="needs the built binary and build/roms/demo.nes (scripts/roms)")

RATE, BURST = 4 << 20, 128 << 10  # netplay_guard.RATE and BURST: bytes a second to one peer, and saved up


def need(nonce, chunks):
    return header(NEED) + struct.pack("<IB", nonce, len(chunks)) + b"".join(struct.pack("<I", c) for c in chunks)


def drain(sock, seconds):
    """Every datagram `sock` receives within `seconds`: (bytes in all, the datagrams)."""
    total, datagrams = 0, []
    deadline = time.monotonic() + seconds
    sock.settimeout(0.02)
    while time.monotonic() < deadline:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        total += len(data)
        datagrams.append(data)
    return total, datagrams


def test_spoofed_hellos_and_a_need_flood_get_back_no_more_than_they_sent_and_a_real_joiner_still_plays():
    identity = demo_identity()
    core, version, sha1, options = identity
    port = free_port()
    settings = dict(stop_after=120, check_interval=60, timeout=5)
    host = Side(settings, ["host:%d" % port])
    sides = [host]
    attacker = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    attacker.bind(("127.0.0.1", 0))
    try:
        assert host.wait_for("waiting for a player", 30), host.stderr()
        target = ("127.0.0.1", port)
        # One at a time: no reply is larger than the datagram it answers.
        probes = [hello_of(core, version, sha1, fnv(options), options, 1),
                  hello_of(core, version, sha1, fnv(options), options, 1, cookie=os.urandom(16)),
                  hello_of(core, version, sha1, fnv(options), b"", 1, protocol=2),
                  header(1, 2) + b"\0\0\0",
                  hello_of(b"x", b"", b"", 0, b"", 1)]
        for probe in probes:
            attacker.sendto(probe, target)
            _, replies = drain(attacker, 0.6)  # past the host's half-second between refusals to one address
            assert all(len(reply) <= len(probe) for reply in replies), (probe, replies)
        sent = received = 0
        for nonce in range(1, 301):
            for data in [hello_of(core, version, sha1, fnv(options), options, nonce),                  # no cookie
                         hello_of(core, version, sha1, fnv(options), options, nonce, cookie=os.urandom(16)),
                         hello_of(core, version, sha1, fnv(options), b"", nonce, protocol=2),         # old version
                         hello_of(b"x", b"", b"", 0, b"", nonce),                                    # a tiny hello
                         header(1, 2) + b"\0\0\0",                                               # tiny, old version
                         need(nonce, list(range(64)))]:
                try:
                    attacker.sendto(data, target)
                    sent += len(data)
                except OSError:
                    pass
            if nonce % 50 == 0:
                received += drain(attacker, 0.05)[0]
        more, datagrams = drain(attacker, 1.0)
        received += more
        print("spoofed: %d bytes sent, %d bytes back" % (sent, received))
        assert 0 < received <= sent, (received, sent)
        assert "joins" not in host.stderr(), host.stderr()
        assert host.process.poll() is None, host.stderr()

        joiner = Side(settings, ["join", "127.0.0.1:%d" % port])
        sides.append(joiner)
        status, report, err = joiner.finish(60)
        host_status, host_report, host_err = host.finish(60)
        assert status == 0 and host_status == 0, (err, host_err)
        assert report["results"]["netplay_frames"] == host_report["results"]["netplay_frames"] == 120
        assert report["results"]["netplay_state_hash"] == host_report["results"]["netplay_state_hash"]
    finally:
        attacker.close()
        for side in sides:
            side.close()


def test_a_proven_joiners_need_flood_gets_each_chunk_once_a_round_trip_under_the_byte_budget():
    identity = demo_identity()
    port = free_port()
    host = Side(dict(timeout=1), ["host:%d" % port])
    peer = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    peer.bind(("127.0.0.1", 0))
    try:
        assert host.wait_for("waiting for a player", 30), host.stderr()
        target = ("127.0.0.1", port)
        nonce = 77
        proven_hello(peer, target, identity, nonce)
        welcome = None
        peer.settimeout(5)
        while welcome is None:
            data = peer.recv(65536)
            if data[5] == WELCOME:
                welcome = data
        _, size, chunks = struct.unpack_from("<III", welcome, 6)
        asked = [index % chunks for index in range(64)]  # every chunk, several times over
        flood = need(nonce, asked)
        started = time.monotonic()
        sent = received = 0
        chunk_bytes = 0
        for round_ in range(20):
            for _ in range(100):
                try:
                    peer.sendto(flood, target)
                    sent += len(flood)
                except OSError:
                    pass
            more, datagrams = drain(peer, 0.02)
            received += more
            chunk_bytes += sum(len(d) for d in datagrams if d[5] == CHUNK)
        more, datagrams = drain(peer, 0.5)
        received += more
        chunk_bytes += sum(len(d) for d in datagrams if d[5] == CHUNK)
        elapsed = time.monotonic() - started
        print("proven flood: %d bytes of needs, %d bytes back (%d of chunks, a game of %d bytes) in %.2f s"
              % (sent, received, chunk_bytes, size, elapsed))
        # Answering every request would send len(asked) chunks per accepted NEED; the budget caps it.
        assert 0 < chunk_bytes <= RATE * elapsed + BURST, (chunk_bytes, elapsed)
        assert host.wait_for("did not take the game; listening again", 20), host.stderr()
        assert host.process.poll() is None, host.stderr()
    finally:
        peer.close()
        host.close()
