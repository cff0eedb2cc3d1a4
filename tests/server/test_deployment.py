"""docker-compose.yml and the Dockerfile describe a deployable server (no Docker needed)."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import yaml

from server.config import ENV_VARS

ROOT = Path(__file__).resolve().parents[2]


def test_compose_runs_redis_with_aof_a_volume_and_a_healthcheck() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    redis = compose["services"]["redis"]
    assert "--appendonly" in redis["command"] and "yes" in redis["command"]
    volume = redis["volumes"][0].split(":")
    assert volume[1] == "/data" and volume[0] in compose["volumes"]
    assert "ping" in " ".join(redis["healthcheck"]["test"])


def test_compose_server_is_built_here_and_waits_for_a_healthy_redis() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    server = compose["services"]["server"]
    assert server["build"] == "."
    assert server["depends_on"]["redis"]["condition"] == "service_healthy"
    env = server["environment"]
    assert env["REDIS_URL"].startswith("redis://redis:6379")
    assert env["SA_HOST"] == "0.0.0.0"
    assert set(env) <= set(ENV_VARS.values())
    assert server["ports"] == [f"{env['SA_PORT']}:{env['SA_PORT']}"]
    assert "/healthz" in " ".join(server["healthcheck"]["test"])
    assert server["stop_signal"] == "SIGTERM"


def test_every_environment_variable_is_documented_in_compose() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    for var in ENV_VARS.values():
        assert var in text, var


def test_dockerfile_runs_the_console_script() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["solitaire-arena"]' in text and 'CMD ["serve"]' in text
    assert "EXPOSE 8765" in text


def _sent_to_docker(path: str, rules: list[str]) -> bool:
    """Whether ``docker build`` sends ``path`` (relative to the context) to the daemon under
    .dockerignore's ``rules``: the last rule matching it or a folder above it decides;
    ``**/`` matches any depth, none included."""
    sent = True
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for rule in rules:
        keep, pattern = rule.startswith("!"), rule.lstrip("!")
        patterns = [pattern, pattern[3:]] if pattern.startswith("**/") else [pattern]
        if any(fnmatch.fnmatchcase(p, q.replace("**/", "*/")) for p in prefixes for q in patterns):
            sent = keep
    return sent


def test_dockerignore_sends_what_the_dockerfile_copies_and_keeps_the_venv_and_data_out() -> None:
    """Without one, docker build sent the .venv (381 MB) and ./data (the embedded Redis's
    AOF, with account data in it) to the daemon."""
    rules = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    copied = re.findall(r"^COPY (\S+)", (ROOT / "Dockerfile").read_text(), re.MULTILINE)
    assert copied == ["pyproject.toml", "shared", "server", "client"]
    for source in copied:
        assert _sent_to_docker(source, rules), source
    for sent in ("server/app.py", "client/web/index.html", "client/web/js/app.js", "shared/protocol.py"):
        assert _sent_to_docker(sent, rules), sent
    kept_out = [
        ".venv/bin/python",
        "data/appendonly.aof",
        ".git/HEAD",
        "tests/conftest.py",
        "bench/load.py",
        ".pytest_cache/v",
        "archive/ab/abcdef.rec",
        "server/__pycache__/app.cpython-311.pyc",
        "server/data/appendonly.aof",
        "solitaire_arena.egg-info/PKG-INFO",
    ]
    for path in kept_out:
        assert not _sent_to_docker(path, rules), path


def test_compose_cluster_profile_runs_three_nodes_on_a_six_server_cluster_behind_haproxy() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    cluster = {name for name, service in services.items() if "cluster" in service.get("profiles", [])}
    redises = sorted(name for name in cluster if name.startswith("redis-"))
    nodes = sorted(name for name in cluster if name.startswith("node-"))
    assert len(redises) == 6 and len(nodes) == 3 and {"cluster-init", "lb"} <= cluster
    for name in redises:
        command = services[name]["command"]
        assert command[command.index("--cluster-enabled") + 1] == "yes"
        assert services[name]["volumes"][0].split(":")[0] in compose["volumes"]
    init = services["cluster-init"]
    assert set(init["depends_on"]) == set(redises)
    assert "--cluster-replicas 1" in init["command"][0]
    lb_address = services["lb"]["networks"]["arena"]["ipv4_address"]
    for name in nodes:
        node = services[name]
        assert node["depends_on"]["cluster-init"]["condition"] == "service_completed_successfully"
        env = node["environment"]
        assert env["REDIS_URL"].startswith("redis+cluster://")
        named = {entry.split(":")[0] for entry in env["REDIS_URL"].split("://")[1].split(",")}
        assert named <= set(redises)
        assert env["SA_TRUSTED_PROXIES"] == lb_address
        assert set(env) <= set(ENV_VARS.values())
    # Everything in the profile shares one network, where the load balancer's address is fixed.
    assert all("arena" in services[name]["networks"] for name in cluster)
    haproxy = (ROOT / "deploy" / "haproxy.cfg").read_text()
    mounted = services["lb"]["volumes"][0].split(":")
    assert mounted[0] == "./deploy/haproxy.cfg"
    for name in nodes:
        assert f"server {name} {name}:8765 check" in haproxy
    assert "option httpchk GET /healthz" in haproxy
