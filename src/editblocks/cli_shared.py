"""What every `editblocks` command shares: exit statuses (SPEC §7) and the one-line input error."""

from __future__ import annotations

import click

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class InputError(click.ClickException):
    """Unreadable or unusable input: one line on stderr, exit 2, never a traceback."""

    exit_code = EXIT_USAGE
