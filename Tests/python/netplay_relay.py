"""A UDP relay between two netplay peers that adds delay, jitter and loss: what a real network does
to datagrams, on loopback, seeded so a run can be repeated. Used by test_netplay.py and scripts/bench.

    relay = Relay(target=("127.0.0.1", host_port), delay=0.05, jitter=0.01, loss=0.05, seed=1)
    relay.start()            # the joiner joins 127.0.0.1:relay.port instead of the host
    ...
    relay.stop()

Each direction delays every datagram by delay ± jitter (uniform) and drops a fraction `loss`;
jitter can reorder datagrams, as on a real path.
"""
import heapq
import random
import select
import socket
import threading
import time


class Relay:
    def __init__(self, target, delay=0.0, jitter=0.0, loss=0.0, seed=1):
        self.target = target
        self.delay, self.jitter, self.loss = delay, jitter, loss
        self.random = random.Random(seed)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.client = None          # the joiner's address, learned from its first datagram
        self.queue = []             # (due, sequence, data, destination)
        self.sequence = 0
        self.forwarded = self.dropped = 0
        self.running = False
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self.running = True
        self.thread.start()
        return self

    def stop(self):
        self.running = False
        self.thread.join(timeout=2)
        self.sock.close()

    def _schedule(self, data, destination):
        if self.random.random() < self.loss:
            self.dropped += 1
            return
        wait = max(0.0, self.delay + self.random.uniform(-self.jitter, self.jitter))
        self.sequence += 1
        heapq.heappush(self.queue, (time.monotonic() + wait, self.sequence, data, destination))

    def _run(self):
        while self.running:
            now = time.monotonic()
            while self.queue and self.queue[0][0] <= now:
                _, _, data, destination = heapq.heappop(self.queue)
                try:
                    self.sock.sendto(data, destination)
                    self.forwarded += 1
                except OSError:
                    pass
            timeout = 0.001 if self.queue else 0.05
            if self.queue:
                timeout = max(0.0, min(timeout, self.queue[0][0] - time.monotonic()))
            readable, _, _ = select.select([self.sock], [], [], timeout)
            if not readable:
                continue
            try:
                data, source = self.sock.recvfrom(65536)
            except OSError:
                continue
            if source == self.target:
                if self.client:
                    self._schedule(data, self.client)
            else:
                self.client = source
                self._schedule(data, self.target)
