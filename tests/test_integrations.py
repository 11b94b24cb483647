"""The framework adapters, each driven by its framework's own agent loop with a scripted model (the framework's
test model, or a scripted Anthropic endpoint on 127.0.0.1): no network."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_anthropic import fake_anthropic, text, tool_use

REPO = Path(__file__).resolve().parent.parent
APP = "def f():\n    return 1\n\n\ndef g():\n    return 1\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    return tmp_path


def read(project: Path, name: str = "app.py") -> str:
    return (project / name).read_bytes().decode("utf-8")


# --- openai-agents -----------------------------------------------------------------------------------


def test_openai_agents_apply_patch_tool_runs_through_editblocks(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agents import Agent, ApplyPatchTool, RunConfig, Runner
    from agents.testing import ScriptedModel, assistant_message

    from editblocks.integrations.openai_agents import EditblocksEditor

    def patch(call_id: str, **operation: Any) -> dict[str, Any]:
        return {"type": "apply_patch_call", "call_id": call_id, "status": "completed", "operation": operation}

    model = ScriptedModel([
        [patch("c1", type="update_file", path="app.py", diff="@@\n-    return 1\n+    return 2\n")],
        [patch("c2", type="update_file", path="app.py", diff="@@ def g():\n-    return 1\n+    return 2\n",
               move_to="lib/app.py")],
        [patch("c3", type="create_file", path="notes.md", diff="+# Notes\n")],
        [patch("c4", type="delete_file", path="notes.md")],
        [patch("c5", type="update_file", path="../outside.py", diff="@@\n-a\n+b\n")],
        [assistant_message("done")],
    ])
    agent = Agent(name="editor", model=model, tools=[ApplyPatchTool(editor=EditblocksEditor(project))])
    result = Runner.run_sync(agent, "make g return 2 and move it", run_config=RunConfig(tracing_disabled=True))

    assert result.final_output == "done"
    assert not (project / "app.py").exists() and read(project, "lib/app.py") == APP[:-2] + "2\n"
    assert not (project / "notes.md").exists() and not (project.parent / "outside.py").exists()
    outputs = [item for item in model.calls[-1].input if isinstance(item, dict)
               and item.get("type") == "apply_patch_call_output"]
    assert [item["status"] for item in outputs] == ["failed", "completed", "completed", "completed", "failed"]
    assert "ambiguous (matches at lines 2 and 6)" in outputs[0]["output"]
    assert "renamed to lib/app.py" in outputs[1]["output"]
    assert "outside the project root" in outputs[4]["output"]


def test_openai_agents_editor_refuses_bad_operations_with_nothing_written(project: Path) -> None:
    from agents import ApplyPatchOperation

    from editblocks.integrations.openai_agents import EditblocksEditor

    editor = EditblocksEditor(project)
    for operation in (ApplyPatchOperation(type="update_file", path="app.py", diff=None),
                      ApplyPatchOperation(type="update_file", path="app.py", diff="@@\n-nope\n+x\n"),
                      ApplyPatchOperation(type="create_file", path="app.py", diff="+x\n"),
                      ApplyPatchOperation(type="delete_file", path="app.py", move_to="b.py"),
                      ApplyPatchOperation(type="update_file", path="", diff="@@\n-a\n+b\n")):
        result = editor.update_file(operation)
        assert result.status == "failed" and result.output, result
    assert read(project) == APP and sorted(p.name for p in project.iterdir() if p.name != ".editblocks") == ["app.py"]


def test_apply_diff_refuses_the_ambiguous_hunk_the_sdks_own_applies_at_the_first_match() -> None:
    import agents

    from editblocks.integrations.openai_agents import EditblocksPatchFormat, PatchRefused, apply_diff

    diff = "@@\n-    return 1\n+    return 2\n"
    assert agents.apply_diff(APP, diff) == APP.replace("return 1", "return 2", 1)  # the first match, silently
    with pytest.raises(PatchRefused, match=r"ambiguous \(matches at lines 2 and 6\)"):
        apply_diff(APP, diff)
    assert apply_diff(APP, "@@ def g():\n-    return 1\n+    return 2\n") == APP[:-2] + "2\n"
    assert apply_diff("a\r\nb\r\n", "@@\n-a\n+A\n") == "A\r\nb\r\n"
    assert apply_diff("", "+x\n+y\n", mode="create") == "x\ny\n"
    assert EditblocksPatchFormat.apply_diff("a\n", "@@\n-a\n+b\n") == "b\n"
    for bad in ("@@\n-missing\n+x\n", "*** Delete File: other\n"):
        with pytest.raises(ValueError):
            apply_diff(APP, bad)
    with pytest.raises(ValueError, match="mode"):
        apply_diff(APP, diff, mode="sideways")  # type: ignore[arg-type]


# --- pydantic-ai -------------------------------------------------------------------------------------


def test_pydantic_ai_toolset_retries_with_the_feedback_then_edits(project: Path) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from editblocks.integrations.pydantic_ai import EditblocksToolset

    turns = [ToolCallPart("view", {"file_path": "app.py", "view_range": [5, 6]}),
             ToolCallPart("edit", {"file_path": "app.py", "old_string": "return 1", "new_string": "return 2"}),
             ToolCallPart("edit", {"file_path": "app.py", "old_string": "return 1", "new_string": "return 2",
                                   "replace_all": "true"}),
             ToolCallPart("apply_patch", {"input": "*** Begin Patch\n*** Add File: b.py\n+b = 1\n*** End Patch\n"}),
             ToolCallPart("apply_edits", {"edits": "b.py\n<<<<<<< SEARCH\nb = 1\n=======\nb = 2\n>>>>>>> REPLACE\n"})]
    seen: list[Any] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        assert sorted(tool.name for tool in info.function_tools) == ["apply_edits", "apply_patch", "edit", "view"]
        last = messages[-1]
        seen.extend(part for part in last.parts if isinstance(last, ModelRequest) and isinstance(part, ToolReturnPart))
        return ModelResponse(parts=[turns.pop(0)] if turns else [TextPart("done")])

    result = Agent(FunctionModel(model), toolsets=[EditblocksToolset(project)]).run_sync("make both return 2")
    assert result.output == "done"
    assert read(project) == APP.replace("return 1", "return 2") and read(project, "b.py") == "b = 2\n"
    assert seen[0].content == "     5\tdef g():\n     6\t    return 1\n"
    assert seen[1].outcome == "retried" and "occurs 2 times" in str(seen[1].content)
    assert [part.outcome for part in seen[2:]] == ["success"] * 3


def test_pydantic_ai_bad_arguments_are_retried_with_a_clear_error_and_nothing_is_written(project: Path) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from editblocks.integrations.pydantic_ai import EditblocksToolset

    turns = [ToolCallPart("edit", {"file_path": "app.py", "old_string": 7}),
             ToolCallPart("edit", {"file_path": "/etc/passwd", "old_string": "a", "new_string": "b"})]
    retries: list[str] = []

    def model(messages: list[Any], info: AgentInfo) -> ModelResponse:
        retries.extend(str(part.content) for part in messages[-1].parts if getattr(part, "outcome", "") == "retried")
        return ModelResponse(parts=[turns.pop(0)] if turns else [TextPart("gave up")])

    agent = Agent(FunctionModel(model), toolsets=[EditblocksToolset(project, max_retries=3)])
    assert agent.run_sync("edit").output == "gave up"
    assert "`old_string` must be a string" in retries[0] and "outside the project root" in retries[1]
    assert read(project) == APP


# --- deepagents --------------------------------------------------------------------------------------


def scripted_chat_model(turns: list[Any]) -> Any:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    class ScriptedChatModel(GenericFakeChatModel):
        """LangChain's fake chat model, taking tools as a real one does (they are in the script already)."""

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    return ScriptedChatModel(messages=iter(turns))


def test_deepagents_edit_file_goes_through_editblocks(tmp_path: Path) -> None:
    from deepagents import create_deep_agent
    from langchain_core.messages import AIMessage, ToolMessage

    from editblocks.integrations.deepagents import EditblocksBackend

    (tmp_path / "win.py").write_bytes(b"\xef\xbb\xbfdef f():\r\n\treturn 1\r\n\r\ndef g():\r\n\treturn 1\r\n")

    def edit(call_id: str, **arguments: Any) -> AIMessage:
        return AIMessage(content="", tool_calls=[{"name": "edit_file", "args": arguments, "id": call_id}])

    turns = [edit("c1", file_path="/win.py", old_string="\treturn 1", new_string="\treturn 2"),
             edit("c2", file_path="/win.py", old_string="\treturn 1", new_string="\treturn 2", replace_all=True),
             edit("c3", file_path="/win.py", old_string="def g():\n    return 2", new_string="def g():\n    return 3"),
             edit("c4", file_path="/win.py", old_string="def h():", new_string="def k():"),
             edit("c5", file_path="/../escape.py", old_string="a", new_string="b"),
             AIMessage(content="done")]
    backend = EditblocksBackend(tmp_path)
    out = create_deep_agent(model=scripted_chat_model(turns), backend=backend).invoke(
        {"messages": [{"role": "user", "content": "make f return 2 and g return 3"}]})

    replies = [message for message in out["messages"] if isinstance(message, ToolMessage)]
    assert [message.status for message in replies] == ["error", "success", "success", "error", "error"]
    assert "occurs 2 times" in replies[0].content and "lines 2 and 5" in replies[0].content
    assert replies[1].content == "Successfully replaced 2 instance(s) of the string in '/win.py'"
    assert "was not found in win.py" in replies[3].content
    assert (tmp_path / "win.py").read_bytes() == b"\xef\xbb\xbfdef f():\r\n\treturn 2\r\n\r\ndef g():\r\n\treturn 3\r\n"
    assert not (tmp_path.parent / "escape.py").exists()
    assert backend.handler.call("undo").ok and b"return 3" not in (tmp_path / "win.py").read_bytes()


def test_deepagents_backend_aedit_and_bad_input(project: Path) -> None:
    from editblocks.integrations.deepagents import EditblocksBackend

    backend = EditblocksBackend(project)
    done = asyncio.run(backend.aedit("/app.py", "def g():\n    return 1", "def g():\n    return 3"))
    assert done.error is None and done.occurrences == 1 and done.path == "/app.py"
    for arguments in (("/", "a", "b"), ("/app.py", "return 3", "return 3"), ("/app.py", "x", None),
                      ("/missing.py", "a", "b")):
        assert backend.edit(*arguments).error.startswith("Error")  # type: ignore[arg-type, union-attr]
    assert read(project) == APP[:-2] + "3\n"


# --- the Anthropic SDK -------------------------------------------------------------------------------


def test_anthropic_tool_runner_with_the_text_editor_and_edit_tools(project: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import anthropic

    from editblocks.integrations.anthropic import EditblocksEditTool, EditblocksTextEditor

    turns = [[tool_use("str_replace_based_edit_tool", {"command": "view", "path": "app.py"}, "t1")],
             [tool_use("edit", {"file_path": "app.py", "old_string": "return 1", "new_string": "return 2"}, "t2")],
             [tool_use("edit", {"file_path": "app.py", "old_string": "return 1", "new_string": "return 2",
                                "replace_all": "true"}, "t3")],
             [tool_use("str_replace_based_edit_tool", {"command": "str_replace", "path": "app.py",
                                                       "old_str": "def g():", "new_str": "def h():"}, "t4"),
              tool_use("str_replace_based_edit_tool", {"command": "create", "path": "/etc/x", "file_text": "x"}, "t5")],
             [text("done")]]
    with fake_anthropic(turns, monkeypatch) as server:
        runner = anthropic.Anthropic().beta.messages.tool_runner(
            model="claude-opus-4-7", max_tokens=1024, messages=[{"role": "user", "content": "return 2"}],
            tools=[EditblocksTextEditor(project, max_characters=40), EditblocksEditTool(project)])
        final = runner.until_done()
        results = server.tool_results()
        sent_tools = server.requests[0]["tools"]

    assert final.content[0].text == "done"
    assert read(project) == APP.replace("return 1", "return 2").replace("def g", "def h")
    assert sent_tools[0] == {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool", "max_characters": 40}
    assert sent_tools[1]["name"] == "edit" and "replace_all" in sent_tools[1]["input_schema"]["properties"]
    assert [bool(result.get("is_error")) for result in results] == [False, True, False, False, True]
    assert "[output cut at 40 characters" in _text_of(results[0])
    assert "occurs 2 times" in _text_of(results[1]) and "Replaced 2 occurrences" in _text_of(results[2])
    assert "outside the project root" in _text_of(results[4])


def _text_of(result: dict[str, Any]) -> str:
    content = result["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


def test_anthropic_tools_refuse_bad_input_with_nothing_written(project: Path) -> None:
    from anthropic.lib.tools import ToolError

    from editblocks.integrations.anthropic import EditblocksEditTool, EditblocksTextEditor

    for tool, bad in ((EditblocksEditTool(project), {"file_path": "app.py"}),
                      (EditblocksEditTool(project), "not json"),
                      (EditblocksEditTool(project), {"file_path": "app.py", "old_string": "def", "new_string": "x",
                                                     "expected_replacements": 5}),
                      (EditblocksTextEditor(project), {"command": "rm", "path": "app.py"}),
                      (EditblocksTextEditor(project), None)):
        with pytest.raises(ToolError, match="^Error"):
            tool.call(bad)
    with pytest.raises(ValueError, match="max_characters"):
        EditblocksTextEditor(project, max_characters=0)
    assert read(project) == APP


@pytest.mark.parametrize(("module", "blocked", "extra"), [
    ("openai_agents", "agents", "openai-agents"), ("pydantic_ai", "pydantic_ai", "pydantic-ai"),
    ("deepagents", "deepagents", "deepagents"), ("anthropic", "anthropic", "anthropic")])
def test_an_adapter_without_its_framework_names_the_extra_to_install(module: str, blocked: str, extra: str,
                                                                      tmp_path: Path) -> None:
    probe = (f"import sys\nsys.modules[{blocked!r}] = None\n"
             f"try:\n    import editblocks.integrations.{module}\nexcept ImportError as error:\n    print(error)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         cwd=tmp_path).stdout
    assert out.startswith("this adapter needs the") and f"pip install -e '{REPO}[{extra}]'" in out


@pytest.mark.parametrize(("module", "name"), [
    ("openai_agents", "EditblocksEditor"), ("pydantic_ai", "EditblocksToolset"),
    ("deepagents", "EditblocksBackend"), ("anthropic", "EditblocksTextEditor"), ("anthropic", "EditblocksEditTool")])
def test_an_adapter_edits_with_the_apply_options_it_is_given(module: str, name: str, project: Path) -> None:
    """`options=ApplyOptions(...)` means what it means for `apply`: strict leaves only exact matches."""
    import importlib

    from editblocks import ApplyOptions

    adapter = getattr(importlib.import_module(f"editblocks.integrations.{module}"), name)(
        project, options=ApplyOptions(strict=True))
    spaced = {"file_path": "app.py", "old_string": "def f():  \n    return 1 ", "new_string": "def f():\n    return 0"}
    assert adapter.handler.session.options.strict
    assert adapter.handler.call("edit", spaced).is_error and read(project) == APP
    assert type(adapter)(project).handler.call("edit", spaced).ok  # found at the trailing-whitespace rung otherwise
    assert read(project).startswith("def f():\n    return 0\n")
