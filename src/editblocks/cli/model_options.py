"""The options that say which model answers and how it is asked: one set for `ask` and the workbench (`serve`).

Sharing the decorators means a key in a config file (`model`, `base-url`,
`retries`, ...) or a variable (`EDITBLOCKS_MODEL`, `OPENAI_BASE_URL`) sets the
same thing for both commands.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import click

from editblocks.ask.messages import DEFAULT_MAX_FILE_BYTES

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def model_options(retries_help: str) -> Decorator:
    """--model, --base-url, --api-key-env, --retries, --timeout, --backoff and --max-file-bytes."""
    options = [
        click.option("--model", default=None, help="The model to ask (also EDITBLOCKS_MODEL)."),
        click.option("--base-url", default=None, envvar="OPENAI_BASE_URL",
                     help="An OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 for llama.cpp "
                          "(default: OPENAI_BASE_URL, else OpenAI's)."),
        click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
                     help="The environment variable holding the API key."),
        click.option("--retries", type=click.IntRange(min=0), default=2, show_default=True, help=retries_help),
        click.option("--timeout", type=click.FloatRange(min=0.001), default=120.0, show_default=True,
                     help="Seconds to wait for the endpoint (to connect, and between pieces of the answer)."),
        click.option("--backoff", type=click.FloatRange(min=0.0), default=1.0, show_default=True,
                     help="Seconds before retrying a failed request, doubling each time (a retry-after header "
                          "wins)."),
        click.option("--max-file-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_FILE_BYTES,
                     show_default=True, help="Refuse to send a file larger than this."),
    ]

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def api_key(variable: str, base_url: str | None) -> str | None:
    """The key in ``variable``; without one, a stand-in for a local server (which usually takes any key)."""
    key = os.environ.get(variable)
    if key:
        return key
    return "no-key" if base_url else None
