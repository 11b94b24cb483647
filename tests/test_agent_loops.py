"""The agent loops of docs/tools.md, run against scripted clients shaped like the vendors' SDKs.

Each client answers with a tool call, then (after seeing the tool's reply) with a final text; the test
checks the file on disk and what the model was sent back.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

TOOLS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "tools.md"
_EXAMPLE = re.compile(r"^````python\n(.*?)^````$", re.DOTALL | re.MULTILINE)


@pytest.fixture(scope="module")
def tools_page() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    for example in _EXAMPLE.findall(TOOLS_PAGE.read_text(encoding="utf-8")):
        exec(compile(example, str(TOOLS_PAGE), "exec"), namespace)
    return namespace


class Scripted:
    """Returns the scripted answers in turn and keeps every request it was sent."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.requests: list[dict[str, Any]] = []

    def create(self, **request: Any) -> Any:
        self.requests.append({key: list(value) if isinstance(value, list) else value
                              for key, value in request.items()})
        return self.answers.pop(0)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("def main():\n    print('hi')\n", encoding="utf-8")
    return tmp_path


def test_chat_completions_loop(tools_page: dict[str, Any], project: Path) -> None:
    call = SimpleNamespace(id="call_1", function=SimpleNamespace(name="str_replace_based_edit_tool", arguments=json.dumps(
        {"command": "str_replace", "path": "app.py", "old_str": "'hi'", "new_str": "'hello'"})))
    completions = Scripted(
        SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=None, tool_calls=[call]))]),
        SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content="done", tool_calls=None))]),
    )
    client = SimpleNamespace(chat=SimpleNamespace(completions=completions))
    assert tools_page["chat_agent"](client, "gpt-test", "say hello", project) == "done"
    assert (project / "app.py").read_text() == "def main():\n    print('hello')\n"
    sent = completions.requests[1]["messages"][-1]
    assert sent["role"] == "tool" and sent["tool_call_id"] == "call_1" and "print('hello')" in sent["content"]
    assert completions.requests[0]["tools"][0]["type"] == "function"


class Operation(SimpleNamespace):
    """Like the SDK's pydantic objects, it dumps itself to a dict."""

    def model_dump(self) -> dict[str, Any]:
        return dict(vars(self))


def test_responses_loop_with_function_calls_and_the_builtin_apply_patch(tools_page: dict[str, Any], project: Path) -> None:
    existing = SimpleNamespace(type="function_call", call_id="c1", name="str_replace_based_edit_tool",
                                arguments=json.dumps({"command": "create", "path": "app.py", "file_text": "x"}))
    delete = SimpleNamespace(type="apply_patch_call", call_id="c2",
                             operation=Operation(type="delete_file", path="../outside.py"))
    update = SimpleNamespace(type="apply_patch_call", call_id="c3", operation=Operation(
        type="update_file", path="app.py", diff="@@ def main():\n-    print('hi')\n+    print('hey')\n"))
    responses = Scripted(SimpleNamespace(output=[existing, delete, update], output_text=""),
                         SimpleNamespace(output=[SimpleNamespace(type="message")], output_text="finished"))
    client = SimpleNamespace(responses=responses)
    assert tools_page["responses_agent"](client, "gpt-test", "task", project) == "finished"
    items = responses.requests[1]["input"]
    outputs = {item["call_id"]: item for item in items if isinstance(item, dict) and "call_id" in item}
    assert outputs["c1"]["type"] == "function_call_output" and "already exists" in outputs["c1"]["output"]
    assert outputs["c2"]["type"] == "apply_patch_call_output" and outputs["c2"]["status"] == "failed"
    assert outputs["c3"]["status"] == "completed"
    assert (project / "app.py").read_text() == "def main():\n    print('hey')\n"
    assert {"type": "apply_patch"} in responses.requests[0]["tools"]


def test_anthropic_messages_loop(tools_page: dict[str, Any], project: Path) -> None:
    view = SimpleNamespace(type="tool_use", id="tu_1", name="str_replace_based_edit_tool",
                           input={"command": "view", "path": "app.py"})
    insert = SimpleNamespace(type="tool_use", id="tu_2", name="str_replace_based_edit_tool",
                             input={"command": "insert", "path": "app.py", "insert_line": 2, "new_str": "    return 0"})
    messages = Scripted(
        SimpleNamespace(content=[SimpleNamespace(type="text", text="Looking."), view, insert]),
        SimpleNamespace(content=[SimpleNamespace(type="text", text="Added the return.")]),
    )
    client = SimpleNamespace(messages=messages)
    assert tools_page["claude_agent"](client, "claude-test", "add a return", project) == "Added the return."
    assert (project / "app.py").read_text() == "def main():\n    print('hi')\n    return 0\n"
    results = messages.requests[1]["messages"][-1]["content"]
    assert [r["tool_use_id"] for r in results] == ["tu_1", "tu_2"]
    assert results[0]["content"].startswith("     1\tdef main():") and not results[0]["is_error"]
    assert messages.requests[0]["tools"][0]["type"] == "text_editor_20250728"
