"""``--metrics-port``: the real server (a subprocess, as a self-hoster runs it) serves Prometheus
text on ``/metrics`` and ``/healthz``, alone and with ``--workers 2``.

During a real game over SSH the numbers move: two sessions while two players are connected, a
room playing, the action a player took counted by kind, the key → screen latency sampled, a
refused login counted with its reason, the journal's writes timed, the workers and each
process's memory reported. ``/healthz`` is 200 while the SSH listener and the rooms are up and
503 otherwise (a shutdown under way; the rooms process killed -9, until it is back). Unknown
paths are 404. A dead server's metrics folder is removed with its work folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from seotda_tui.cli import process
from seotda_tui.cluster.supervisor import WORKDIR_PREFIX, remove_stale_workdirs
from seotda_tui.config import load_settings
from seotda_tui.logs import record_fields
from seotda_tui.metrics import Exporter
from seotda_tui.ssh.server import ServerConfig

from .ssh_harness import SSHClient, connect, wait_until
from .test_resume_e2e import mover_of, press_until
from .test_shutdown import _server_process
from .workerkit import WAIT, cluster, kill_9

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def get(port: int, path: str) -> tuple[int, str]:
    return await asyncio.to_thread(_get, port, path)


async def scrape(port: int) -> Samples:
    status, text = await get(port, "/metrics")
    assert status == 200, text
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sum over every series of ``name`` whose labels include ``labels`` (the pid label of
    a multiprocess gauge left free), 0 if there is none."""
    wanted = set(labels.items())
    return sum(v for (n, have), v in samples.items() if n == name and wanted <= have)


async def until_scraped(port: int, check, what: str, timeout: float = WAIT) -> Samples:
    """Scrape until ``check(samples)`` holds (the workers write their files as they go)."""
    loop = asyncio.get_running_loop()
    until = loop.time() + timeout
    while True:
        samples = await scrape(port)
        if check(samples):
            return samples
        if loop.time() > until:
            interesting = {k: v for k, v in samples.items() if k[0].startswith("seotda_")}
            raise AssertionError(f"no {what} in the metrics: {interesting}")
        await asyncio.sleep(0.1)


async def a_hand_begun(ssh_ports: tuple[int, int], metrics_port: int) -> None:
    """영희 opens a room, 철수 sits, the game starts and whoever is first bets 삥; meanwhile the
    metrics say two sessions and the room playing, count the action and time it, and count a
    login refused for its name (a bot's)."""
    before = await scrape(metrics_port)
    async with connect(ssh_ports[0], "영희") as host, connect(ssh_ports[1], "철수") as guest:
        await host.wait_for("영희님 환영해요", WAIT)
        await guest.wait_for("철수님 환영해요", WAIT)
        await until_scraped(metrics_port, lambda s: value(s, "seotda_sessions") == 2, "2 sessions")
        await press_until(host, "n", "Tab 이동")
        await press_until(host, "enter", "대기 중")
        await until_scraped(
            metrics_port, lambda s: value(s, "seotda_rooms", state="waiting") == 1, "a room"
        )
        await guest.wait_for("영희의 방", WAIT)
        await press_until(guest, "enter", "시작하기를")
        await host.wait_for("· 2/", WAIT)
        await press_until(host, "s", "· 게임 중 ·")
        players: dict[str, SSHClient] = {"영희": host, "철수": guest}
        mover = await mover_of(players)
        await players[mover].press("3")  # 삥
        await players[mover].wait_gone("내 차례예요", WAIT)

        def moved(s: Samples) -> bool:
            return value(s, "seotda_actions_total", kind="ping", outcome="applied") > value(
                before, "seotda_actions_total", kind="ping", outcome="applied"
            ) and value(s, "seotda_action_latency_seconds_count") > value(
                before, "seotda_action_latency_seconds_count"
            )

        during = await until_scraped(metrics_port, moved, "the 삥 and its latency")
        assert value(during, "seotda_sessions") == 2
        assert value(during, "seotda_rooms", state="playing") == 1
        assert value(during, "seotda_rooms", state="waiting") == 0
        latency = value(during, "seotda_action_latency_seconds_sum") - value(
            before, "seotda_action_latency_seconds_sum"
        )
        assert 0 < latency < WAIT  # seconds from the key to the frame, not a clock's epoch
        assert value(during, "seotda_logins_total", outcome="accepted") >= 2
        assert value(during, "seotda_journal_write_seconds_count") > value(
            before, "seotda_journal_write_seconds_count"
        )
        async with connect(ssh_ports[0], "봇1") as refused:  # a bot's name: refused, told why
            await refused.wait_closed(WAIT)
        await until_scraped(
            metrics_port,
            lambda s: (
                value(s, "seotda_login_refusals_total", reason="bad_nickname")
                == value(before, "seotda_login_refusals_total", reason="bad_nickname") + 1
            ),
            "the refused login's reason",
        )
        assert (await get(metrics_port, "/healthz")) == (200, "ok\n")
    after = await until_scraped(metrics_port, lambda s: value(s, "seotda_sessions") == 0, "0")
    assert value(after, "seotda_process_resident_memory_bytes") > 10_000_000


async def test_one_process_serves_its_metrics_and_health_during_a_game(tmp_path: Path) -> None:
    port = free_port()
    flags = ("--metrics-port", str(port), "--shutdown-notice", "2")
    async with _server_process(tmp_path, *flags) as (proc, ssh_port, lines):
        assert (await get(port, "/healthz")) == (200, "ok\n")
        assert (await get(port, "/other"))[0] == 404
        await a_hand_begun((ssh_port, ssh_port), port)
        samples = await scrape(port)
        assert value(samples, "seotda_workers_up") == 1
        assert value(samples, "seotda_rooms_process_up") == 1
        assert value(samples, "process_resident_memory_bytes") > 0  # the library's, too
        async with connect(ssh_port, "민수") as last:  # the notice keeps the shutdown going
            await last.wait_for("민수님 환영해요", WAIT)
            proc.send_signal(signal.SIGTERM)
            await wait_until(
                lambda: "event=shutdown" in "\n".join(lines), WAIT, "the shutdown to begin"
            )
            assert (await get(port, "/healthz"))[0] == 503
            await last.wait_closed(WAIT)
        assert await asyncio.wait_for(proc.wait(), 15) == 0
    assert any("event=metrics_listening addr=127.0.0.1:" in line for line in lines)


async def test_workers_metrics_are_summed_and_health_follows_the_rooms_process(
    tmp_path: Path,
) -> None:
    port = free_port()
    async with cluster(tmp_path, 2, "--metrics-port", str(port)) as c:
        (a, _), (b, _) = c.workers()
        await until_scraped(port, lambda s: value(s, "seotda_workers_up") == 2, "2 workers up")
        assert (await get(port, "/healthz")) == (200, "ok\n")
        await a_hand_begun((a, b), port)  # one player on each worker
        samples = await scrape(port)
        processes = {
            dict(labels)["process"]
            for name, labels in samples
            if name == "seotda_process_resident_memory_bytes"
        }
        assert {"rooms", "worker0", "worker1"} <= processes
        (hub,) = c.children()["hub"]
        kill_9(hub)
        loop = asyncio.get_running_loop()
        until = loop.time() + WAIT
        while (await get(port, "/healthz"))[0] != 503:  # until the parent restarts it
            assert loop.time() < until, "still healthy without the rooms process"
            await asyncio.sleep(0.02)
        await c.wait_log(r"event=hub_listening", 2)
        await until_scraped(port, lambda s: value(s, "seotda_rooms_process_up") == 1, "rooms")
        assert (await get(port, "/healthz")) == (200, "ok\n")
        c.proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(c.proc.wait(), 15) == 0


async def test_healthz_is_200_when_the_server_says_it_listens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One process (cli.process.serve_until_signal): ``/healthz`` follows the SSH server from
    before its ``event=listening`` line. It used to be set after start_server returned, so a
    check made as that line came out could get 503 (11 of 30 in a loop that asked at once; now
    and then the first check of the test above)."""
    monkeypatch.setattr(process, "arm_watchdog", lambda seconds: None)  # (it would end pytest)
    exporter = Exporter("127.0.0.1", 0)
    at_listening: list[int] = []

    class Probe(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record_fields(record).get("event") == "listening":
                at_listening.append(exporter.answer("/healthz")[0])

    logger, probe = logging.getLogger("seotda.server"), Probe()
    monkeypatch.setattr(logger, "level", logging.INFO)
    logger.addHandler(probe)
    settings = load_settings(
        env={},
        flags={
            "host": "127.0.0.1",
            "port": 0,
            "hostkey_dir": tmp_path / "hostkeys",
            "data_dir": tmp_path / "data",
            "shutdown_notice": 0.0,
        },
    )
    config = ServerConfig(app_factory=lambda identity, ctx: None, settings=settings)
    serving = asyncio.create_task(process.serve_until_signal(config, None, exporter))
    try:
        await wait_until(lambda: at_listening or serving.done(), WAIT, "the listening line")
        assert at_listening == [200]
        assert exporter.answer("/healthz")[0] == 200
    finally:
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving
        logger.removeHandler(probe)
        exporter.close()
    assert exporter.is_healthy() is False  # closed: the server no longer accepts


def test_a_dead_servers_metrics_folder_goes_with_its_work_folder(tmp_path: Path) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()  # its pid names a parent that is no longer running
    folder = tmp_path / f"{WORKDIR_PREFIX}{gone.pid}-abc"
    (folder / "metrics").mkdir(parents=True)
    for name in ("counter_123.db", "gauge_livesum_123.db"):
        (folder / "metrics" / name).write_bytes(b"\0" * 16)
    old = time.time() - 120
    os.utime(folder, (old, old))
    assert remove_stale_workdirs(tmp_path) == [folder]
    assert not folder.exists()
