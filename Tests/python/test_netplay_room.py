"""Netplay over the internet: `retrolua netplay-relay` and rooms (lua/retrolua/netplay_room.lua).

Two headless `retrolua run --netplay host|join --netplay-relay … --netplay-room SECRET` processes meet in
a room of a real relay on loopback (neither listens on a port of its own) and end on the same state; a
joiner with another secret lands in another room and finds nobody. The relay role's hostile cases: a
stranger's packets (data, joins without or with forged cookies, leaves, garbage) are not passed on and get
back no more bytes than they sent; inside a room, packets under a wrong key, a player's own packets sent
back to it and packets played again are dropped by the players (and counted), and a real joiner still plays.

Run: RETROLUA=$PWD/.build/debug/retrolua build/venv/bin/python -m pytest -q -p no:cacheprovider \
         Tests/python/test_netplay_room.py
"""

import base64
import hashlib
import hmac
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_netplay import BINARY, COOKIE, DEMO, Side, hello_of, random_input_script  # noqa: E402

pytestmark = pytest.mark.skipif(not (os.path.exists(BINARY) and os.path.exists(DEMO)),
                                reason="needs the built binary and build/roms/demo.nes (scripts/roms)")

# The relay's wire format (Sources/retrolua/NetplayRelay.swift, lua/retrolua/netplay_room.lua).
JOIN, RCOOKIE, ROOM, DATA, FULL, LEAVE = range(1, 7)
DATA_HEADER = "<4sBBBII"


def rheader(kind):
    return struct.pack("<4sBB", b"RLRY", 1, kind)


def room_of(secret, content):
    """The room's id (what the relay sees) and the players' key, as netplay_room.derive makes them."""
    sha1 = hashlib.sha1(content).hexdigest().encode()
    return (hmac.new(secret, b"retrolua netplay room\n" + sha1, hashlib.sha256).digest()[:16],
            hmac.new(secret, b"retrolua netplay key\n" + sha1, hashlib.sha256).digest())


def code_of(room):
    letters = base64.b32encode(room[:5]).decode()
    return letters[:4] + "-" + letters[4:]


def join_packet(seat, room, cookie=b"\0" * 16):
    body = rheader(JOIN) + struct.pack("<B", seat) + room + cookie
    return body + b"\0" * (64 - len(body))


def data_packet(key, seat, instance, counter, payload):
    body = struct.pack(DATA_HEADER, b"RLRY", 1, DATA, seat, instance, counter) + payload
    return body + hmac.new(key, body, hashlib.sha256).digest()[:16]


def drain(sock, seconds):
    """Every datagram `sock` receives within `seconds`."""
    datagrams = []
    deadline = time.monotonic() + seconds
    sock.settimeout(0.02)
    while time.monotonic() < deadline:
        try:
            datagrams.append(sock.recv(65536))
        except socket.timeout:
            continue
    return datagrams


def first(sock, wanted, seconds=20):
    """The first datagram `sock` receives for which `wanted` holds, within `seconds` (None: none came)."""
    deadline = time.monotonic() + seconds
    sock.settimeout(0.1)
    while time.monotonic() < deadline:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        if wanted(data):
            return data
    return None


def seated(sock, relay, seat, room, seconds=10):
    """Joins `room` at `seat` from `sock` (echoing the relay's cookie); the relay's ROOM answer."""
    sock.settimeout(0.2)
    cookie = b"\0" * 16
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock.sendto(join_packet(seat, room, cookie), relay)
        try:
            reply = sock.recv(65536)
        except socket.timeout:
            continue
        if reply[:6] == rheader(RCOOKIE):
            cookie = reply[6:22]
        elif reply[:6] == rheader(ROOM):
            return reply
    raise AssertionError("the relay did not seat us")


class Relay:
    """A `retrolua netplay-relay` on a loopback port the system picks."""

    def __init__(self):
        self.out = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen([BINARY, "netplay-relay", "0", "--bind", "127.0.0.1"], stdout=self.out,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and "listening on" not in self.text():
            time.sleep(0.05)
        line = [line for line in self.text().splitlines() if "listening on" in line][0]
        self.port = int(line.rsplit(":", 1)[1])
        self.address = ("127.0.0.1", self.port)

    def text(self):
        self.out.seek(0)
        return self.out.read()

    def stop(self):
        """Stops it with SIGTERM: its exit status and output (the last line counts what it did)."""
        self.process.terminate()
        status = self.process.wait(timeout=10)
        return status, self.text()


def players(relay, secret, mode, settings, script=None, extra=()):
    return Side(settings, [mode, "--netplay-relay", "127.0.0.1:%d" % relay.port, "--netplay-room", secret],
                script=script, extra=extra)


def test_two_players_meet_in_a_room_through_the_relay_and_end_on_the_same_state():
    with open(DEMO, "rb") as rom:
        room, _ = room_of(b"open sesame", rom.read())
    relay = Relay()
    scripts = tempfile.mkdtemp(prefix="netplay-scripts-")
    settings = dict(stop_after=600, check_interval=60, timeout=5)
    host = players(relay, "open sesame", "host", settings, random_input_script(scripts, "host.lua", 5))
    time.sleep(0.3)
    joiner = players(relay, "open sesame", "join", settings, random_input_script(scripts, "join.lua", 9))
    stranger = players(relay, "another secret", "join", dict(settings, connect_timeout=4))
    try:
        host_status, host_report, host_err = host.finish(90)
        join_status, join_report, join_err = joiner.finish(90)
        lost_status, lost_report, lost_err = stranger.finish(30)
    finally:
        for side in (host, joiner, stranger):
            side.close()
        shutil.rmtree(scripts, ignore_errors=True)
        relay_status, relay_text = relay.stop()
    assert host_status == 0 and join_status == 0, (host_err, join_err)
    here, there = host_report["results"], join_report["results"]
    assert here["netplay_frames"] == there["netplay_frames"] == 600, (here, there)
    assert here["netplay_state_hash"] == there["netplay_state_hash"], (here, there)
    assert here["netplay_ram_hash"] == there["netplay_ram_hash"], (here, there)
    assert host_report["frame"]["hash"] == join_report["frame"]["hash"]
    assert "netplay_desync_frame" not in here and "netplay_desync_frame" not in there
    assert here["netplay_relay_forged"] == there["netplay_relay_forged"] == 0, (here, there)
    # Python, Lua and the relay derive the same room: the code the players show is the relay's.
    code = code_of(room)
    assert "hosting room %s" % code in host_err and "joining room %s" % code in join_err, (host_err, join_err)
    assert "room %s: the host came" % code in relay_text and "room %s: the joiner came" % code in relay_text
    assert "sesame" not in relay_text
    # Another secret is another room: nobody answers there.
    assert lost_status == 1, lost_err
    assert "no answer from room" in lost_report["results"]["netplay_end"], lost_report
    assert relay_status == 143, relay_text
    assert "passed on" in relay_text.splitlines()[-1], relay_text


def test_a_strangers_packets_to_the_relay_are_not_passed_on_and_get_back_no_more_than_sent():
    relay = Relay()
    room = os.urandom(16)
    host, joiner, stranger = (socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(3))
    try:
        for sock in (host, joiner, stranger):
            sock.bind(("127.0.0.1", 0))
        assert seated(host, relay.address, 1, room)[6] == 1
        assert seated(joiner, relay.address, 2, room)[6] == 2
        sent = 0
        received = []
        probes = [rheader(DATA) + b"from nobody" * 40,                 # data from an address without a seat
                  join_packet(2, room),                                # a join without a cookie
                  join_packet(1, room, os.urandom(16)),                # a forged cookie, for the host's seat
                  join_packet(2, room)[:40],                           # a join too short to answer
                  rheader(LEAVE),                                      # a leave from nobody
                  rheader(ROOM) + b"\2", b"garbage", b"RLRY\1\x63", b""]
        for _ in range(100):
            for probe in probes:
                stranger.sendto(probe, relay.address)
                sent += len(probe)
            received += drain(stranger, 0.005)
        received += drain(stranger, 0.5)
        # Nothing but cookies, each smaller than the join it answers; nothing reached the seated players.
        assert sum(len(reply) for reply in received) <= sent, (len(received), sent)
        assert all(reply[:6] == rheader(RCOOKIE) and len(reply) == 22 for reply in received), received[:3]
        assert drain(host, 0.3) == [] and drain(joiner, 0.3) == []
        # The seats held: the host's data still reaches the joiner, unchanged, and the other way.
        host.sendto(rheader(DATA) + b"hello joiner", relay.address)
        joiner.sendto(rheader(DATA) + b"hello host", relay.address)
        assert first(joiner, lambda data: data == rheader(DATA) + b"hello joiner")
        assert first(host, lambda data: data == rheader(DATA) + b"hello host")
        # A third player with its own cookie is told the room is full, in fewer bytes than it sent.
        third = seated_or_full(stranger, relay.address, room)
        assert third == rheader(FULL), third
        # A seated player's flood reaches the other no larger than it was sent.
        flood = [rheader(DATA) + os.urandom(1300) for _ in range(600)]
        for datagram in flood:
            host.sendto(datagram, relay.address)
        arrived = drain(joiner, 1.0)
        assert sum(len(d) for d in arrived) <= sum(len(d) for d in flood)
        assert set(arrived) <= set(flood)
    finally:
        for sock in (host, joiner, stranger):
            sock.close()
        status, text = relay.stop()
    assert status == 143, text


def test_one_machine_holds_at_most_64_seats_of_the_relay():
    relay = Relay()
    sockets = []
    try:
        for _ in range(65):
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        answers = [seated_or_full(sock, relay.address, os.urandom(16), seat=1) for sock in sockets]
        assert all(answer == rheader(ROOM) + b"\1" for answer in answers[:64]), answers[:64]
        assert answers[64] == rheader(FULL), answers[64]
        # A seat given back is a seat free for the same machine.
        sockets[0].sendto(rheader(LEAVE), relay.address)
        time.sleep(0.2)
        assert seated_or_full(sockets[64], relay.address, os.urandom(16), seat=1) == rheader(ROOM) + b"\1"
    finally:
        for sock in sockets:
            sock.close()
        relay.stop()


def test_bad_relay_command_lines_are_refused_with_exit_2():
    cases = [(["run", DEMO, "--netplay-room", "x"], "apply to --netplay"),
             (["run", DEMO, "--netplay", "host", "--netplay-relay", "127.0.0.1"], "go together"),
             (["run", DEMO, "--netplay", "host:5000", "--netplay-relay", "127.0.0.1", "--netplay-room", "x"],
              "takes host or join"),
             (["run", DEMO, "--netplay", "join", "--netplay-relay", "127.0.0.1", "--netplay-room", ""], "1…256"),
             (["netplay-relay", "70000"], "PORT must be 0…65535"),
             (["netplay-relay", "1", "2"], "at most a PORT")]
    for args, message in cases:
        done = subprocess.run([BINARY] + args, capture_output=True, text=True, timeout=30)
        assert done.returncode == 2 and message in done.stderr, (args, done.returncode, done.stderr)


def seated_or_full(sock, relay, room, seat=2):
    """The relay's answer to a proven JOIN for the joiner's seat: ROOM or FULL."""
    sock.settimeout(0.2)
    cookie = b"\0" * 16
    for _ in range(50):
        sock.sendto(join_packet(seat, room, cookie), relay)
        try:
            reply = sock.recv(65536)
        except socket.timeout:
            continue
        if reply[:6] == rheader(RCOOKIE):
            cookie = reply[6:22]
            continue
        return reply
    raise AssertionError("no answer from the relay")


def test_forged_reflected_and_replayed_packets_inside_a_room_are_dropped_by_the_players():
    secret = b"the players' secret"
    with open(DEMO, "rb") as rom:
        room, key = room_of(secret, rom.read())
    relay = Relay()
    settings = dict(stop_after=300, check_interval=60, timeout=5)
    host = players(relay, secret.decode(), "host", settings)
    attacker = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    attacker.bind(("127.0.0.1", 0))
    sides = [host]
    try:
        assert host.wait_for("waiting for the other player", 30), host.stderr()
        # The attacker knows the room's id (as the relay does) and takes the joiner's seat.
        seated(attacker, relay.address, 2, room)
        hello = hello_of(b"nestopia", b"1.0", b"0" * 40, 0, b"", 7)  # larger than the cookie it asks for
        wrong_key = bytes(reversed(key))
        for counter in range(1, 51):
            attacker.sendto(data_packet(wrong_key, 2, 1234, counter, hello), relay.address)  # a wrong key
            attacker.sendto(data_packet(key, 1, 1234, counter, hello), relay.address)        # the host's own
        assert drain(attacker, 1.0) == [], "the host answered a packet it should have dropped"
        # A real packet (as if the relay had kept one) gets its answer once: played again, it is dropped.
        genuine = data_packet(key, 2, 99, 1, hello)
        attacker.sendto(genuine, relay.address)
        attacker.sendto(genuine, relay.address)
        answer = first(attacker, lambda data: data[:6] == rheader(DATA))
        assert answer, "the host did not answer a genuine hello"
        again = [d for d in drain(attacker, 1.0) if d[:6] == rheader(DATA)]
        assert again == [], again
        payload = answer[15:-16]
        assert payload[:4] == b"RLNP" and payload[5] == COOKIE, payload
        attacker.sendto(rheader(LEAVE), relay.address)
        # A real joiner still plays, to the host's state.
        joiner = players(relay, secret.decode(), "join", settings)
        sides.append(joiner)
        join_status, join_report, join_err = joiner.finish(60)
        host_status, host_report, host_err = host.finish(60)
    finally:
        attacker.close()
        for side in sides:
            side.close()
        relay.stop()
    assert host_status == 0 and join_status == 0, (host_err, join_err)
    here, there = host_report["results"], join_report["results"]
    assert here["netplay_state_hash"] == there["netplay_state_hash"], (here, there)
    assert here["netplay_relay_forged"] == 50, here
    assert here["netplay_relay_reflected"] == 50, here
    assert here["netplay_relay_replayed"] == 1, here
