"""Who is told when a page's state changes: its event streams, or a caller waiting for the page's Apply.

A state object (the review's, the workbench's) calls `notify` after each
change, from whichever thread made it. The listeners are called outside any
lock, so one may read the state at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

Listener = Callable[[], None]


class Listeners:
    """The callbacks to call after every change; safe to use from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` after every change; returns the call that stops it."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def notify(self) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            listener()
