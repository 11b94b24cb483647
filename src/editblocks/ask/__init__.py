"""`editblocks ask`: the round trip with a model (the `[ask]` extra).

`messages` builds the conversation, `client` streams an answer from any
OpenAI-compatible endpoint, `display` shows it with each block's live verdict
(from the service's `editblocks.service.live`), `rounds` runs the rounds
(confirm, apply, feedback, retry) and `tool_loop` the tool-call conversation
of `--tools`. The page `--serve` streams into, and the workbench, sit above
this package in `editblocks.web`.
"""
