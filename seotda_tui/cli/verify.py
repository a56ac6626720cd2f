"""``seotda-server --verify-hand FILE`` (issue 36, docs/rules.md §8.4): check revealed deal seeds
against their commitments and the cards shown, with nothing but the file (no server, no data).

FILE is JSON: a list of a game's public events (as the hand log and a replay keep them: each
match's ``dealCommit`` … ``dealReveal``), or one match record (``engine.proof.DealRecord``:
``commitment``, ``seed``, ``salt``, ``deals`` as ``[[count, [players…]], …]`` and ``shown`` as
``{player: [card ids]}``), or a list of such records.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from engine import proof


def _records(data: object) -> list[Mapping[str, object]]:
    if isinstance(data, Mapping):
        return [data]
    if isinstance(data, list) and all(isinstance(x, Mapping) for x in data):
        if any("type" in x for x in data):  # a stream of events
            return [dict(r) for r in proof.records(data)]
        return list(data)
    raise ValueError("JSON은 이벤트 목록, 판 기록 하나, 또는 판 기록 목록이어야 해요")


def verify_file(path: Path, out: TextIO) -> int:
    """Print one line per match (and its problems): 0 when every match checks out, 1 if not."""
    try:
        records = _records(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        print(f"읽을 수 없어요: {path}: {exc}", file=out)
        return 1
    if not records:
        print("확인할 판이 없어요 (딜 시드가 공개된 판이 없음)", file=out)
        return 1
    failed = 0
    for record in records:
        where = f"{record.get('handNo', '?')}판"
        if record.get("rematchNo"):
            where += f" 재경기 {record['rematchNo']}회차"
        problems = proof.verify(record)
        if problems:
            failed += 1
            print(f"{where}: 맞지 않아요", file=out)
            for problem in problems:
                print(f"  - {problem}", file=out)
        else:
            print(f"{where}: 확인됨 (약속 {str(record.get('commitment'))[:16]}…)", file=out)
    return 1 if failed else 0
