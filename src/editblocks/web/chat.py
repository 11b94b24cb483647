"""Talking to the model from the workbench: its settings, and one answer streamed.

The request and the stream are `ask`'s (`editblocks.ask.client`: the real
`openai` SDK, bounded retries before an answer starts, one line per kind of
failure), so the page and the terminal meet an endpoint the same way. An
answer that breaks off, is stopped, or never starts ends its round with a
one-line note, and none of its blocks is ever written.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from editblocks.ask.client import Endpoint, stream_answer
from editblocks.ask.messages import DEFAULT_MAX_FILE_BYTES, Message
from editblocks.errors import EndpointError, StreamDropped

STOPPED = "stopped: the rest of the answer was not asked for, and nothing of it will be applied"


@dataclass(frozen=True)
class ModelSettings:
    """Who answers and how the workbench asks: the same settings (and config keys) as `editblocks ask`."""

    model: str | None
    base_url: str | None
    api_key: str | None
    timeout: float = 120.0
    backoff: float = 1.0
    retries: int = 2  # feedback rounds after a round with failed blocks
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    editor: bool = False

    @property
    def problem(self) -> str:
        """Why nothing can be asked (one line), or ""."""
        if not self.model:
            return ("no model: start `editblocks serve` with --model, or set EDITBLOCKS_MODEL or `model` in your "
                    "own config file")
        if not self.api_key:
            return "no API key: set OPENAI_API_KEY (or the variable --api-key-env names) and start again"
        return ""

    @property
    def where(self) -> str:
        """The server, as it may be shown or saved (credentials in its address read `***`)."""
        return self.endpoint().shown

    def endpoint(self) -> Endpoint:
        return Endpoint(self.model or "", self.base_url, self.api_key or "", timeout=self.timeout,
                        backoff=self.backoff)


def stream_turn(client: Any, settings: ModelSettings, messages: Sequence[Message], on_text: Callable[[str], None],
                announce: Callable[[str], None], stop: threading.Event) -> tuple[str, str]:
    """Stream one answer into ``on_text``; how it ended ("done", "stopped", "broken" or "error") and a note."""
    try:
        for piece in stream_answer(client, settings.endpoint(), messages, announce=announce):
            if stop.is_set():
                return "stopped", STOPPED
            if isinstance(piece, str):
                on_text(piece)
    except StreamDropped as error:
        if stop.is_set():
            return "stopped", STOPPED
        return "broken", f"{error}; nothing of this answer will be applied"
    except EndpointError as error:
        return "error", f"{error}; nothing was written"
    except Exception as error:  # whatever else the SDK or the transport raised: one line, never a traceback
        if stop.is_set():
            return "stopped", STOPPED
        first = str(error).strip().split("\n", 1)[0][:200]
        what = f"{type(error).__name__}: {first}" if first else type(error).__name__
        return "error", f"the request failed ({what}); nothing was written"
    if stop.is_set():
        return "stopped", STOPPED
    return "done", ""
