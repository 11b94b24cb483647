"""Talking to an OpenAI-compatible chat endpoint: stream an answer's text, with bounded retries before it starts.

The `openai` SDK does the HTTP and the server-sent events; its own retries are
turned off so that every retry is announced in one line, `retry-after` is
honoured, and the wait can be made tiny in tests. Only the request is retried,
never an answer that has started: once text has been shown, a dropped
connection ends the round (`StreamDropped`) and nothing is applied.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from editblocks.ask.redact import redact_url, scrub
from editblocks.errors import EndpointError, StreamDropped

if TYPE_CHECKING:
    import openai

ATTEMPTS = 3  # one request and two retries
MAX_WAIT_SECONDS = 60.0


@dataclass(frozen=True)
class Endpoint:
    """Where and how to ask: the model, the server (None: OpenAI's), the key, and the request timing."""

    model: str
    base_url: str | None
    api_key: str
    timeout: float = 120.0
    backoff: float = 1.0  # the first retry waits this long, each next one twice as long
    attempts: int = ATTEMPTS

    @property
    def shown_url(self) -> str | None:
        """``base_url`` as it may be shown or saved: credentials in it read `***`."""
        return redact_url(self.base_url) if self.base_url else None

    @property
    def shown(self) -> str:
        """The server, named for a person (see `shown_url`)."""
        return self.shown_url or "api.openai.com"


def missing_extra() -> str:
    """The one line that names the package `ask` lacks and the command that installs it."""
    from editblocks.extras import install_command

    return f"`editblocks ask` needs the openai package: {install_command('ask')}"


@dataclass(frozen=True)
class ToolCallDelta:
    """A piece of a streamed tool call: the call at ``index`` gets these parts appended."""

    index: int
    call_id: str
    name: str
    arguments: str


Piece = str | ToolCallDelta
Announce = Callable[[str], None]


def make_client(endpoint: Endpoint) -> openai.OpenAI:
    try:
        import openai
    except ImportError:
        raise EndpointError("missing-extra", missing_extra(), retryable=False) from None
    return openai.OpenAI(api_key=endpoint.api_key, base_url=endpoint.base_url, timeout=endpoint.timeout,
                         max_retries=0)


def stream_answer(client: openai.OpenAI, endpoint: Endpoint, messages: Sequence[dict[str, Any]], *,
                  announce: Announce, tools: Sequence[dict[str, Any]] | None = None,
                  sleep: Callable[[float], None] = time.sleep) -> Iterator[Piece]:
    """The answer's text (and tool-call pieces) as they arrive; raises `EndpointError` or `StreamDropped`."""
    stream = _open(client, endpoint, messages, tools, announce, sleep)
    finished = False
    try:
        for chunk in stream:
            for choice in chunk.choices or ():
                delta = choice.delta
                if delta is not None and delta.content:
                    yield delta.content
                for call in (delta.tool_calls or ()) if delta is not None else ():
                    function = call.function
                    yield ToolCallDelta(call.index, call.id or "", (function.name or "") if function else "",
                                        (function.arguments or "") if function else "")
                if choice.finish_reason:
                    finished = True
    except Exception as error:  # whatever the transport raised mid-answer: the answer is incomplete
        raise StreamDropped(scrub(f"the connection broke off mid-answer ({_describe(error)})",
                                  endpoint.base_url)) from None
    finally:
        stream.close()
    if not finished:
        raise StreamDropped("the answer ended without the end-of-answer mark (connection closed early)")


def _open(client: openai.OpenAI, endpoint: Endpoint, messages: Sequence[dict[str, Any]],
          tools: Sequence[dict[str, Any]] | None, announce: Announce, sleep: Callable[[float], None]) -> Any:
    extra: dict[str, Any] = {"tools": list(tools)} if tools else {}
    for attempt in range(1, endpoint.attempts + 1):
        try:
            return client.chat.completions.create(model=endpoint.model, messages=list(messages),  # type: ignore[arg-type]
                                                  stream=True, **extra)
        except Exception as error:
            problem = classify(error, endpoint)
            if not problem.retryable or attempt == endpoint.attempts:
                raise problem from None
            wait = problem.retry_after if problem.retry_after is not None else endpoint.backoff * 2 ** (attempt - 1)
            wait = min(wait, MAX_WAIT_SECONDS)
            announce(f"{problem}; retrying in {wait:g} s (attempt {attempt + 1} of {endpoint.attempts})")
            sleep(wait)
    raise AssertionError("unreachable: the last attempt raises")


def classify(error: Exception, endpoint: Endpoint) -> EndpointError:
    """One line for each way a request fails, and whether trying again can help; the URL's credentials hidden."""
    problem = _classify(error, endpoint)
    return EndpointError(problem.code, scrub(str(problem), endpoint.base_url), retryable=problem.retryable,
                         retry_after=problem.retry_after)


def _classify(error: Exception, endpoint: Endpoint) -> EndpointError:
    import openai

    where = endpoint.shown
    if isinstance(error, openai.APITimeoutError):
        return EndpointError("endpoint-timeout", f"{where} did not answer within {endpoint.timeout:g} s",
                             retryable=True)
    if isinstance(error, openai.APIConnectionError):
        cause = _describe(error.__cause__ or error)
        return EndpointError("endpoint-unreachable", f"cannot connect to {where} ({cause})", retryable=True)
    if isinstance(error, openai.AuthenticationError):
        return EndpointError("endpoint-auth", f"{where} refused the API key (401); check the key variable "
                                              "(--api-key-env, OPENAI_API_KEY)", retryable=False)
    if isinstance(error, openai.PermissionDeniedError):
        return EndpointError("endpoint-auth", f"{where} denied access (403) to model {endpoint.model!r}",
                             retryable=False)
    if isinstance(error, openai.NotFoundError):
        return EndpointError("endpoint-model", f"{where} has no model {endpoint.model!r} (404); check --model "
                                               "and --base-url", retryable=False)
    if isinstance(error, openai.RateLimitError):
        return EndpointError("endpoint-rate-limit", f"{where} is rate limiting requests (429)", retryable=True,
                             retry_after=retry_after(error.response.headers))
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        if status >= 500:
            return EndpointError("endpoint-server", f"{where} failed with a server error ({status})", retryable=True,
                                 retry_after=retry_after(error.response.headers))
        return EndpointError("endpoint-request", f"{where} rejected the request ({status}): {_first_line(error)}",
                             retryable=False)
    if isinstance(error, openai.OpenAIError):
        return EndpointError("endpoint-request", _first_line(error), retryable=False)
    raise error


def retry_after(headers: Any) -> float | None:
    """Seconds the server asks to wait: `retry-after-ms`, or `retry-after` in seconds or as an HTTP date."""
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.split("\n", 1)[0][:200] if text else type(error).__name__


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {_first_line(error)}" if str(error).strip() else type(error).__name__
