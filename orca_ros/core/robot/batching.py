"""When the states of one process's robots go out together (no ROS).

``orca_robots`` hosts several robots in one process; their states go out in one message
a period (the wire format: :mod:`orca_ros.nodes.state_batch`). The robots of a process
take their odometry from one simulator tick or localisation rate, so their states come
within milliseconds of each other. :class:`StateBatcher` sends a batch

* as soon as it holds a state of every robot of the process that put one in within the
  last :data:`QUIET_AFTER` seconds;
* before a robot's second state goes in (no state is ever replaced unsent);
* at the latest :data:`MAX_WAIT` seconds after the batch's first state, so a robot that
  is late or goes quiet delays the others' states by at most that much. The executor's
  loop asks (:meth:`StateBatcher.due`) between callbacks.
"""

from __future__ import annotations

import time
from typing import Callable, Dict, List, Optional, Tuple

MAX_WAIT = 0.04
"""Seconds a batch waits at most after its first state (wall time)."""
QUIET_AFTER = 1.0
"""Seconds after its last state from which a robot is no longer waited for."""
IDLE_WAIT = 0.1
"""Seconds the executor waits for work when no batch is pending."""


class StateBatcher:
    """One process's robots' states, gathered and sent as one batch (the rule above).
    ``send``: what sends a batch, its ``(robot, serialized state)`` pairs (None: a batch
    is dropped, as while no node of the process can publish); ``clock``: seconds,
    monotonic (wall time by default)."""

    def __init__(self, max_wait: float = MAX_WAIT, quiet_after: float = QUIET_AFTER,
                 clock: Callable[[], float] = time.monotonic,
                 send: Optional[Callable[[List[Tuple[str, bytes]]], None]] = None) -> None:
        self.max_wait = max_wait
        self.quiet_after = quiet_after
        self.clock = clock
        self.send = send
        self.pending: Dict[str, bytes] = {}
        self.first_at: Optional[float] = None
        self.seen: Dict[str, float] = {}  # each robot's last state, when it was put in

    def put(self, robot: str, state: bytes) -> None:
        """Robot ``robot``'s newest state (serialized), to go with the next batch."""
        if robot in self.pending:
            self.flush()
        now = self.clock()
        if not self.pending:
            self.first_at = now
        self.pending[robot] = state
        self.seen[robot] = now
        if all(name in self.pending for name, at in self.seen.items()
               if now - at < self.quiet_after):
            self.flush()

    def forget(self, robot: str) -> None:
        """``robot``'s node is gone: no batch waits for it."""
        self.seen.pop(robot, None)

    def flush(self) -> None:
        """Send what is pending, if anything."""
        if not self.pending:
            return
        if self.send is not None:
            self.send(list(self.pending.items()))
        self.pending = {}
        self.first_at = None

    def due(self) -> float:
        """Send the batch if it has waited :attr:`max_wait`; the seconds the executor
        may wait for work before asking again."""
        if self.first_at is None:
            return IDLE_WAIT
        left = self.first_at + self.max_wait - self.clock()
        if left <= 0.0:
            self.flush()
            return IDLE_WAIT
        return left
