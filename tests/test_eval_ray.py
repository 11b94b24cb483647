"""`editblocks eval --backend ray` (issue 28): the same case function as Ray tasks over a Ray Data dataset gives
the local backends' verdicts, case for case, on the shipped cases and on a generated dataset.

One local Ray with 2 CPUs serves the module (starting Ray takes seconds); the commands run in this process, so
`ray.init()` in the backend joins it, as it would join any cluster it finds.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import ray
from click.testing import CliRunner

from editblocks.cli import main

ROOT = Path(__file__).parent.parent
CASES = Path(__file__).parent / "cases"

pytestmark = pytest.mark.xdist_group("ray")  # under pytest-xdist, one worker starts Ray for all of them


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def bench_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eval_scale_bench", ROOT / "bench" / "eval_scale_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return module


def cases_of(path: Path) -> list[dict[str, Any]]:
    """Every case an events file holds, all but the time it took."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event["type"] == "case_finished":
            found.append({key: value for key, value in event["case"].items() if key != "seconds"})
    return found


def evaluate(tmp_path: Path, name: str, *args: str) -> list[dict[str, Any]]:
    out = tmp_path / f"{name}.jsonl"
    result = CliRunner().invoke(main, ["eval", *args, "--jsonl", str(out)], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return cases_of(out)


def test_ray_gives_the_local_verdicts_on_the_shipped_cases(tmp_path: Path) -> None:
    for suffix in (".jsonl", ".parquet"):
        exported = CliRunner().invoke(main, ["eval", "export", str(CASES), "--out", str(tmp_path / f"c{suffix}")])
        assert exported.exit_code == 0, exported.output
    memory = evaluate(tmp_path, "memory", str(CASES))
    disk = evaluate(tmp_path, "disk", str(CASES), "--backend", "disk")
    on_ray = evaluate(tmp_path, "ray", str(CASES), "--backend", "ray")
    jsonl_on_ray = evaluate(tmp_path, "ray-jsonl", str(tmp_path / "c.jsonl"), "--backend", "ray")
    parquet_on_ray = evaluate(tmp_path, "ray-parquet", str(tmp_path / "c.parquet"), "--backend", "ray")
    assert len(memory) > 300
    assert memory == disk == on_ray == jsonl_on_ray == parquet_on_ray


def test_ray_gives_the_local_verdicts_on_a_generated_dataset_with_bad_rows_shards_and_resume(tmp_path: Path) -> None:
    dataset = bench_module().generate(tmp_path / "generated.jsonl", 600)
    memory = evaluate(tmp_path, "memory", str(dataset))
    disk = evaluate(tmp_path, "disk", str(dataset), "--backend", "disk")
    on_ray = evaluate(tmp_path, "ray", str(dataset), "--backend", "ray")
    assert memory == disk == on_ray
    assert {"correct", "refused-ok", "wrong", "error"} <= {case["verdict"] for case in memory}

    shard = evaluate(tmp_path, "shard", str(dataset), "--backend", "ray", "--shard", "2/3")
    local_shard = evaluate(tmp_path, "local-shard", str(dataset), "--shard", "2/3")
    assert shard == local_shard and 0 < len(shard) < len(memory)
    resumed_path = tmp_path / "resumed.jsonl"
    resumed_path.write_text("".join(line + "\n" for line in (tmp_path / "memory.jsonl").read_text(
        encoding="utf-8").splitlines()[:301]), encoding="utf-8")
    result = CliRunner().invoke(main, ["eval", str(dataset), "--backend", "ray", "--jsonl", str(resumed_path),
                                       "--resume"], catch_exceptions=False)
    assert result.exit_code == 1
    resumed = cases_of(resumed_path)
    assert len(resumed) == len(memory) and sorted(resumed, key=by_name) == sorted(memory, key=by_name)


def by_name(case: dict[str, Any]) -> str:
    return str(case["name"])
