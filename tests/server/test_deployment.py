"""docker-compose.yml and the Dockerfile describe a deployable server (no Docker needed)."""

from __future__ import annotations

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
