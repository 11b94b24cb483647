"""A page's event stream: what changed, sent as a server-sent event each time something does.

Changes made while one event is being sent are coalesced into the next, so a
slow page is sent fewer, larger events rather than a backlog; a comment line
every 15 s keeps proxies and the browser from closing a quiet stream.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable

KEEP_ALIVE_SECONDS = 15.0
Subscribe = Callable[[Callable[[], None]], Callable[[], None]]
Latest = Callable[[int], Awaitable[tuple[int, str] | None]]
"""Given the version a page has, the newer version and its data (None when there is nothing newer)."""


async def event_stream(subscribe: Subscribe, latest: Latest, since: int, stopping: threading.Event,
                       event: str) -> AsyncIterator[str]:
    """``event`` events with what `latest` gives, from version ``since`` on, until ``stopping`` is set."""
    loop = asyncio.get_running_loop()
    wake = asyncio.Event()

    def changed() -> None:
        try:
            loop.call_soon_threadsafe(wake.set)
        except RuntimeError:  # the server's loop has stopped
            pass

    unsubscribe = subscribe(changed)
    try:
        yield ": connected\n\n"
        while not stopping.is_set():
            wake.clear()
            newer = await latest(since)
            if newer is not None:
                since, data = newer
                yield f"event: {event}\ndata: {data}\n\n"
            try:
                await asyncio.wait_for(wake.wait(), KEEP_ALIVE_SECONDS)
            except TimeoutError:
                yield ": keep-alive\n\n"
    finally:
        unsubscribe()
